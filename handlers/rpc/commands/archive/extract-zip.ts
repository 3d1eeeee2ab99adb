/**
 * `extract_zip {zipContent, destDir}` (docs/noide-protocol.md#extract_zip) → every extracted path, absolute. The archive arrives as
 * base64 in the frame (strict: a malformed one is `Invalid base64: …`, never a quietly different archive);
 * the destination resolves inside the workspace like any path; core/archive does the rest, all or nothing.
 */
import { z } from 'zod';
import { extractZip } from '../../../../core/archive/extract-zip.ts';
import { decodeBase64, InvalidBase64Error } from '../../../../core/text/base64.ts';
import { mutationScope } from '../../../shared/mutation-scope.ts';
import { RpcError, defineCommand } from '../../command.ts';

export const extractZipCommand = defineCommand({
  args: { zipContent: z.string(), destDir: z.string() },
  async run({ zipContent, destDir }, { ctx }) {
    if (!ctx.zip) throw new RpcError('extract_zip is not available on this runtime');
    let bytes: Uint8Array;
    try {
      bytes = decodeBase64(zipContent);
    } catch (error) {
      if (error instanceof InvalidBase64Error) throw new RpcError(error.message);
      throw error;
    }
    // Like every other write: the destination and each entry stay out of the agents folder.
    const scope = await mutationScope(ctx, undefined);
    const destination = await scope.folder(destDir);
    const { zipMaxEntries, zipMaxBytes, zipMaxRatio } = ctx.limits;
    return await extractZip(bytes, destination, {
      fs: scope.view.fs,
      zip: ctx.zip,
      resolve: (path) => scope.view.resolve(path),
      caps: { maxEntries: zipMaxEntries, maxBytes: zipMaxBytes, maxRatio: zipMaxRatio },
      excluded: scope.agentsDir,
    });
  },
});
