import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that each take minutes (a cdk synthesis, start:deployed, the benches): started first, so the rest fills the other workers meanwhile. */
const LONG = [/\/test\/deployed\//, /\/test\/infra\/(benches|stack|web-hosting)\.test\.ts$/];

/**
 * The run's order: the long isolated files first, then every end-to-end file of the shared-stack project
 * back to back (a worker is handed on to the next such file only while the queue's head is one), then
 * the quick isolated files. Within each part, vitest's own order (failed first, then longest first from
 * the last run, else largest file first).
 */
export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => (LONG.some((re) => re.test(spec.moduleId)) ? 0 : spec.project.config.isolate ? 2 : 1);
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
