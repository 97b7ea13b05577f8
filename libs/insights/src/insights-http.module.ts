import { Module } from '@nestjs/common';
import { InsightsHttpController } from './insights.http.controller.js';

/** The Insights route; the controller only uses the query bus. */
@Module({ controllers: [InsightsHttpController] })
export class InsightsHttpModule {}
