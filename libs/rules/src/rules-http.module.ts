import { Module } from '@nestjs/common';
import { ListEvaluationsHttpController } from './queries/list-evaluations/list-evaluations.http.controller.js';
import { SubmitContentHttpController } from './commands/submit-content/submit-content.http.controller.js';
import { ListRulesHttpController } from './queries/list-rules/list-rules.http.controller.js';

/**
 * The rules engine's routes: evaluations and the synchronous content endpoint (customer API), the
 * rules page (console).
 * Its controllers only use the command and query buses; the handlers are RulesModule's,
 * composed by every process, while this module is composed only where HTTP is served.
 */
@Module({ controllers: [ListEvaluationsHttpController, SubmitContentHttpController, ListRulesHttpController] })
export class RulesHttpModule {}
