import type { Note } from '../changes/runner.ts';
import type { ChuteEngine } from '../engine/docker.ts';

/**
 * Builds a chute's image from its source (the build context) as `tag`, and answers the tag. The
 * change's messages get the build's steps (`Step 2/4 : COPY . /app`) and its `Successfully …` lines,
 * not what each step prints: a step such as `npm install` prints thousands of lines, and each message
 * is a write of the change record.
 *
 * @throws Error saying the build failed, with the engine's message and the last lines of its output.
 */
export async function buildImage(engine: ChuteEngine, chute: string, source: Uint8Array, tag: string, networkMode: string, note: Note): Promise<string> {
  await note(`building image ${tag} from the source of chute ${chute}`);
  const last: string[] = [];
  try {
    await engine.build(source, tag, networkMode, async (line) => {
      last.push(line);
      if (last.length > BUILD_TAIL_LINES) last.shift();
      if (BUILD_PROGRESS.test(line)) await note(line);
    });
  } catch (error) {
    const tail = last.length === 0 ? '' : ` (the build's last lines: ${last.join(' | ')})`;
    throw new Error(`building image ${tag} failed: ${(error as Error).message}${tail}`);
  }
  await note(`built image ${tag}`);
  return tag;
}

/** How many lines of the build's output a failed change's reason quotes. */
const BUILD_TAIL_LINES = 5;

/** The lines of a build's output that become change messages: its steps and its outcome. */
const BUILD_PROGRESS = /^(?:Step \d+\/\d+ : |Successfully )/;

/** Removes an image a change built; a failure is noted, not thrown (the image only takes space). */
export async function removeBuiltImage(engine: ChuteEngine, image: string, note: Note): Promise<void> {
  try {
    await engine.removeImage(image);
    await note(`removed image ${image}`);
  } catch (error) {
    await note(`could not remove image ${image}: ${(error as Error).message}`);
  }
}
