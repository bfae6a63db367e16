// serve's change pipeline, a bundle of its own (dist/change-log.mjs): the runner and its log's files,
// loaded when serve first uses its changes (at start, to open the log), so that neither weighs on the
// runtime bundle (docs/bundles.md).
export { openChangeLog } from './log.ts';
export { changeRunner } from './runner.ts';
