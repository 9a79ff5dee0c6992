import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedFilesOutcome } from '@platform/testing';
import { typeDefs } from '../src';

/**
 * The GraphQL types the code uses (libs/events graphql-types.generated.ts, content's resolver-types.generated.ts,
 * written by scripts/graphql-types.mjs with graphql-codegen) are those of the SDL as the source makes it now: the
 * script, in check mode, compares what it would generate from this SDL with the committed files.
 */
it('the committed GraphQL types are generated from the current SDL', async () => {
  const outcome = await generatedFilesOutcome('graphql-types.mjs', (dir) => {
    const sdl = path.join(dir, 'schema.graphql');
    writeFileSync(sdl, typeDefs);
    return ['--from', sdl];
  });
  expect(outcome).toBe('up to date');
}, 60_000);
