import { Injectable } from '@nestjs/common';

/** Registered (method, path) pairs, to tell a wrong method (405) from an unknown path (404). */
@Injectable()
export class RouteTable {
  private readonly routes: Array<{ method: string; pattern: RegExp }> = [];

  add(methods: string | string[], url: string): void {
    const pattern = new RegExp(
      '^' +
        url
          .replace(/\/+$/, '')
          .split('/')
          .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/') +
        '/?$',
    );
    for (const method of [methods].flat()) this.routes.push({ method: method.toUpperCase(), pattern });
  }

  /** Methods allowed on a path; empty when the path is unknown. */
  allowedMethods(path: string): string[] {
    const p = path.split('?')[0] ?? '';
    return [...new Set(this.routes.filter((r) => r.pattern.test(p)).map((r) => r.method))].filter((m) => m !== 'HEAD');
  }
}
