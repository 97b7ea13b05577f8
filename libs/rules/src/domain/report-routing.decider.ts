import type { Decider } from '#warden/kernel';
import type { ReportRouted, ReportRoutingEvent } from './report-routing.events.js';

/** Records where a report goes, as the routing found it (report-router.ts). */
export interface RouteReport {
  readonly type: 'RouteReport';
  readonly route: ReportRouted['data'];
}

export interface ReportRoutingState {
  readonly routed: boolean;
}

/**
 * One report's routing, on a stream of its own: a report is routed once. A redelivered report is
 * routed again by the reactor but records nothing more, so the job never gets two requests for
 * it, even when the configuration changed in between and the second routing would pick another
 * queue.
 */
export const reportRoutingDecider: Decider<RouteReport, ReportRoutingState, ReportRoutingEvent> = {
  eventTypes: { ReportRouted: true },
  initialState: { routed: false },

  decide(command, state) {
    if (state.routed) return [];
    return [{ type: 'ReportRouted', data: command.route }];
  },

  evolve() {
    return { routed: true };
  },
};
