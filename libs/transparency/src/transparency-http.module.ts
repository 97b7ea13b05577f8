import { Module } from '@nestjs/common';
import { TransparencyHttpController } from './transparency.http.controller.js';

/** The transparency module's console routes; the controller only uses the query bus. */
@Module({ controllers: [TransparencyHttpController] })
export class TransparencyHttpModule {}
