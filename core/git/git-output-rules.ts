import type { GitOutput } from './git-runner.ts';

/**
 * What a git command answers, by the two rules of docs/noide-protocol.md#git over one process's GitOutput. `ok: false` carries the
 * error text the protocol replies with (`{ok: false, error: text}`).
 */
export type GitAnswer = { ok: true; text: string } | { ok: false; text: string };

// Not fatal: a file name or a diff in another encoding still shows, its bad bytes as U+FFFD (as the original's
// from_utf8_lossy did). ignoreBOM keeps a leading U+FEFF: file text is the bytes exactly, a BOM included.
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Git's bytes as text: UTF-8, each bad sequence → U+FFFD, nothing else changed. */
export function decodeGitText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * The **text rule**: exit 0 → stdout then stderr, trimmed; else stderr trimmed, or stdout (trimmed) when stderr
 * has nothing but whitespace.
 *
 * "Then" is the original's plain concatenation (`format!("{}{}", stdout, stderr).trim()`): git ends its lines
 * with a newline, so the two join on a line break. Only when stdout's last line is unterminated is a `\n` put
 * between them, where the original ran the two texts together on one line.
 */
export function textRule(output: GitOutput): GitAnswer {
  const stdout = decodeGitText(output.stdout);
  if (output.code === 0) {
    const joiner = stdout !== '' && output.stderr !== '' && !stdout.endsWith('\n') ? '\n' : '';
    return { ok: true, text: (stdout + joiner + output.stderr).trim() };
  }
  const stderr = output.stderr.trim();
  return { ok: false, text: stderr !== '' ? stderr : stdout.trim() };
}

/**
 * The **content rule** (diffs, file text): exit 0 → stdout exactly, decoded; a failure answers as the text rule
 * does. Not trimmed: the original lost a diff's last blank context line (`" \n"`) and a file's edge whitespace.
 */
export function contentRule(output: GitOutput): GitAnswer {
  if (output.code !== 0) return textRule(output);
  return { ok: true, text: decodeGitText(output.stdout) };
}
