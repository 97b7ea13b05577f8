import { api, ok, type Schemas } from '../api/client';
import { useSession } from './session';
import { useLoad } from './use-load';
import { DEFAULT_WELLNESS, useWellness, type Wellness } from './wellness';

type Settings = Schemas['ConsoleSettingsResponseDto'];

/**
 * What the review screens need about the organization: its decision rules and wellness
 * defaults, its policies, its actions and the queues this user may see. Loaded together once
 * per review screen; the policy tree and the actions change rarely.
 */
export function useConsoleSettings() {
  const session = useSession();
  const loaded = useLoad(async () => {
    const [settings, policies, actions, queues] = await Promise.all([
      ok(api.GET('/api/console/v1/settings')),
      ok(api.GET('/api/console/v1/policies')),
      ok(api.GET('/api/console/v1/actions')),
      ok(api.GET('/api/console/v1/queues')),
    ]);
    return { settings, policies: policies.policies, actions: actions.actions, queues: queues.queues };
  }, []);
  const organization: Wellness = loaded.data ? (loaded.data.settings.wellness as Wellness) : DEFAULT_WELLNESS;
  const personal = useWellness(session.user?.id ?? '', organization);
  return {
    data: loaded.data?.settings as Settings | undefined,
    error: loaded.error,
    wellness: loaded.data ? personal.wellness : undefined,
    personal,
    policies: (loaded.data?.policies ?? []).map((p) => ({ id: p.id, name: p.name, parentId: p.parentId ?? null })),
    actions: loaded.data?.actions ?? [],
    queues: loaded.data?.queues ?? [],
  };
}
