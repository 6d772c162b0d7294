import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (measured: a cdk synthesis, start:deployed, the benches,
 * then the end-to-end files that run a race many times over or drive the CLI). Vitest orders by the last
 * run's durations only when its cache has them; a fresh clone (CI) has none and falls back to file size,
 * which started the longest races in the last quarter of the run and made the tail of the run theirs.
 */
const LONG = [
  /\/test\/deployed\/deployed\.test\.ts$/,
  /\/test\/infra\/benches\.test\.ts$/,
  /\/test\/infra\/stack\.test\.ts$/, // with the dashboard hosting's cases (web-hosting.cases.ts)
  /\/test\/deployed\//,
  /\/test\/e2e\/derived-items-race\.test\.ts$/,
  /\/test\/e2e\/edges-delete-race\.test\.ts$/,
  /\/test\/e2e\/(archive|impex-jobs|admin-cli|cli-plans|cli)\.test\.ts$/,
  /\/test\/e2e\/(connections-paging|services|services-paging|counters-race|members-remove|web-ops|contention-race)\.test\.ts$/,
];

/**
 * The run's order: the long files above first, in that order, then every other end-to-end file of the
 * shared-stack project back to back (a worker is handed on to the next such file only while the queue's
 * head is one), then the rest (unit, integration and infra files). Within each part, vitest's own order (failed first, then
 * longest first from the last run, else largest file first).
 */
export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const long = LONG.findIndex((re) => re.test(spec.moduleId));
      return long >= 0 ? long : LONG.length + (spec.project.name === 'e2e' ? 0 : 1);
    };
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
