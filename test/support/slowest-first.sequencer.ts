import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Each file's duration in the last whole run on a clean clone, as CI's (`npm run test:durations`
 * records it): the order on a fresh clone, which has no results cache of its own.
 */
const CI_DURATIONS_MS: Record<string, number> = JSON.parse(readFileSync(join(import.meta.dirname, 'file-durations.json'), 'utf8')) as Record<string, number>;
/**
 * A first guess, in milliseconds, for a file recorded nowhere (a new one): a browser file starts
 * Chromium and a server and walks the console; a fuzz file sends thousands of requests. Only their
 * order among the others matters.
 */
const FIRST_GUESS_MS: Record<string, number> = { browser: 25_000, fuzz: 10_000 };
/** An e2e file without a recorded duration: about 2 ms per byte of source (the slow ones are the long ones). */
const E2E_MS_PER_BYTE = 2;

/**
 * Runs the files of a group (docs/testing.md, "Workers") longest first, whatever their project.
 * vitest's own order runs a group's projects one after another by name (browser, e2e, fuzz), so
 * the fuzz files, among the longest, started last, where one of them can leave a core working
 * alone at the end of the run. Longest first leaves the short files to fill both cores at the end.
 * The duration is the last run's (vitest's results cache) or, without one, CI's last recorded
 * (file-durations.json), or for a new file a guess from the project and the file's size.
 */
export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const cost = new Map(ordered.map((spec) => [spec, this.expectedMs(spec)]));
    // Array.prototype.sort is stable: ties keep vitest's order.
    return ordered.sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      // A project that shares a module graph between its files (unit) keeps its own order.
      if (a.project.config.isolate === false || b.project.config.isolate === false) return 0;
      return cost.get(b)! - cost.get(a)!;
    });
  }

  private expectedMs(spec: TestSpecification): number {
    const recorded = this.ctx.cache.getTestSpecificationResult(spec);
    if (recorded?.duration) return recorded.duration;
    const known = CI_DURATIONS_MS[relative(spec.project.config.root, spec.moduleId)];
    if (known !== undefined) return known;
    const guess = FIRST_GUESS_MS[spec.project.name];
    if (guess !== undefined) return guess;
    try {
      return statSync(spec.moduleId).size * E2E_MS_PER_BYTE;
    } catch {
      return 0;
    }
  }
}
