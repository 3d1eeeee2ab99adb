/**
 * The two agents chat drives (docs/noide-protocol.md#agent-chat): their display names, the folders their own
 * installers put them in, and the two texts a client shows when the CLI is missing or is not the agent.
 */
import type { ChatAgent } from './chat-types.ts';

const DISPLAY_NAMES: Record<ChatAgent, string> = { kilo: 'Kilo Code', opencode: 'OpenCode' };

/** Under the home folder: where each agent's own installer puts its executable. */
export const INSTALL_FOLDERS: Record<ChatAgent, string> = { kilo: '.kilo/bin', opencode: '.opencode/bin' };

export function otherAgent(agent: ChatAgent): ChatAgent {
  return agent === 'kilo' ? 'opencode' : 'kilo';
}

export function missingText(agent: ChatAgent): string {
  const name = DISPLAY_NAMES[agent];
  return `${name} CLI (\`${agent}\`) was not found on your system PATH. Install it and make sure \`${agent}\` is available on your PATH, then retry.`;
}

export function wrongBinaryText(agent: ChatAgent): string {
  const name = DISPLAY_NAMES[agent];
  return (
    `A binary named \`${agent}\` was found on your PATH, but it does not appear to be ${name} ` +
    `(\`${agent} --version\` produced unrecognizable output). Make sure \`${agent}\` is the correct agent CLI, then retry.`
  );
}
