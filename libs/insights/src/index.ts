export { InsightsModule } from './insights.module.js';
export { GetInsightsQuery } from './queries/get-insights/get-insights.query.js';
export { INSIGHTS_PROJECTION, insightsProjection } from './projections/insights.projection.js';
export * from './contracts.js';
