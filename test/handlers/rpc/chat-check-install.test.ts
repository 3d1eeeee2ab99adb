import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFakeAgent, type AgentName, type FakeAgentConfig } from '../../support/fake-agent-cli.ts';
import { chatFolders, finished, startChat, startChatFixture, type ChatFixture, type ChatFolders } from './chat-fixture.ts';

const MISSING = {
  opencode: 'OpenCode CLI (`opencode`) was not found on your system PATH. Install it and make sure `opencode` is available on your PATH, then retry.',
  kilo: 'Kilo Code CLI (`kilo`) was not found on your system PATH. Install it and make sure `kilo` is available on your PATH, then retry.',
};
const WRONG = {
  opencode:
    'A binary named `opencode` was found on your PATH, but it does not appear to be OpenCode (`opencode --version` produced unrecognizable output). Make sure `opencode` is the correct agent CLI, then retry.',
  kilo: 'A binary named `kilo` was found on your PATH, but it does not appear to be Kilo Code (`kilo --version` produced unrecognizable output). Make sure `kilo` is the correct agent CLI, then retry.',
};

/** A `run --help` that is not the agent's. */
const NOT_THE_AGENT: FakeAgentConfig = { help: 'some-other-tool 1.2.3\nUsage: opencode [options]\n' };

/** Where the lookup looks, under the fixture's HOME and PATH. */
function places(folders: ChatFolders) {
  return {
    opencodeHome: join(folders.home, '.opencode', 'bin'),
    kiloHome: join(folders.home, '.kilo', 'bin'),
    nvm: (version: string) => join(folders.home, '.nvm', 'versions', 'node', version, 'bin'),
    path: folders.bin,
    local: join(folders.home, '.local', 'bin'),
  };
}

type Places = ReturnType<typeof places>;

/** A server over a HOME and PATH laid out by `install` (no agent anywhere else), for `body`. */
async function withLayout(install: (at: Places, folders: ChatFolders) => Promise<void>, body: (fx: ChatFixture, at: Places) => Promise<void>) {
  const folders = await chatFolders();
  await install(places(folders), folders);
  const fx = await startChatFixture({ folders, agents: {} });
  try {
    await body(fx, places(folders));
  } finally {
    await fx.close();
  }
}

async function checkInstall(fx: ChatFixture, command: AgentName): Promise<unknown> {
  const reply = await fx.client.call('chat_check_install', { command });
  expect(reply).toEqual({ id: reply.id, ok: true, result: expect.any(Boolean) });
  return reply.result;
}

/** A chat's done error (undefined when it ran) and, when it ran, the executable it ran. */
async function chatThrough(fx: ChatFixture, command: AgentName): Promise<{ error?: string; exe?: string }> {
  const chat = await startChat(fx.client, 'hello', { command });
  const { done } = await finished(fx.client, chat.rid);
  return { ...(done.error === undefined ? {} : { error: done.error }), ...(fx.records.run(chat.prompt) ? { exe: fx.records.run(chat.prompt)!.exe } : {}) };
}

describe('/ws chat_check_install and the agent lookup', () => {
  it('nothing installed: false, and a chat ends with the not-found text', async () => {
    await withLayout(
      async () => {},
      async (fx) => {
        for (const agent of ['opencode', 'kilo'] as const) {
          expect(await checkInstall(fx, agent)).toBe(false);
          expect(await chatThrough(fx, agent)).toEqual({ error: MISSING[agent] });
        }
      },
    );
  });

  it('the agent on PATH: true, found by `run --help` in the daemon’s env with plain output, and the chat runs it', async () => {
    await withLayout(
      async (at) => {
        await writeFakeAgent(at.path, 'opencode');
        await writeFakeAgent(at.path, 'kilo');
      },
      async (fx, at) => {
        for (const agent of ['opencode', 'kilo'] as const) {
          const before = fx.records.invocations().length;
          expect(await checkInstall(fx, agent)).toBe(true);
          const probes = fx.records.invocations().slice(before);
          expect(probes.map(({ exe, argv }) => ({ exe, argv }))).toEqual([{ exe: join(at.path, agent), argv: ['run', '--help'] }]);
          expect(probes[0]!.env).toEqual({ ...fx.daemonEnv, NO_COLOR: '1', TERM: 'dumb', CI: '1' });
          expect(await chatThrough(fx, agent)).toEqual({ exe: join(at.path, agent) });
        }
      },
    );
  });

  it('identity: a line that starts with `<command> run [` once leading whitespace and control characters are dropped', async () => {
    const helps: [string, boolean][] = [
      ['opencode run [message..]\n', true],
      ['Usage:\n\n \t\x07\x1b opencode run [message..]\n\nrun opencode with a message\n', true],
      ['opencode 0.9.1\n', false],
      ['Usage: opencode run [message..]\n', false],
      ['opencode run <message>\n', false],
      ['kilo run [message..]\n', false],
      ['', false],
    ];
    for (const [help, identified] of helps) {
      await withLayout(
        async (at) => {
          await writeFakeAgent(at.path, 'opencode', { help });
        },
        async (fx, at) => {
          expect(await checkInstall(fx, 'opencode'), JSON.stringify(help)).toBe(identified);
          expect(await chatThrough(fx, 'opencode'), JSON.stringify(help)).toEqual(identified ? { exe: join(at.path, 'opencode') } : { error: WRONG.opencode });
        },
      );
    }
  });

  it('the order: own install folder, each nvm node, PATH, ~/.local/bin, the other agent’s folder; the first that passes wins', async () => {
    for (const agent of ['opencode', 'kilo'] as const) {
      const other = agent === 'opencode' ? 'kilo' : 'opencode';
      const wrong: FakeAgentConfig = { help: `${other} run [message..]\n` };
      // All wrong: every candidate is probed, in order, and none passes.
      await withLayout(
        async (at) => {
          for (const folder of [at[`${agent}Home`], at.nvm('v18.20.0'), at.nvm('v20.11.0'), at.path, at.local, at[`${other}Home`]]) {
            await writeFakeAgent(folder, agent, wrong);
          }
        },
        async (fx, at) => {
          expect(await checkInstall(fx, agent)).toBe(false);
          const order = [at[`${agent}Home`], at.nvm('v18.20.0'), at.nvm('v20.11.0'), at.path, at.local, at[`${other}Home`]];
          expect(fx.records.probes()).toEqual(order.map((folder) => join(folder, agent)));
          expect(await chatThrough(fx, agent)).toEqual({ error: WRONG[agent] });
        },
      );
    }
  });

  it('its own install folder wins over PATH (PATH never probed)', async () => {
    await withLayout(
      async (at) => {
        await writeFakeAgent(at.opencodeHome, 'opencode');
        await writeFakeAgent(at.path, 'opencode');
      },
      async (fx, at) => {
        expect(await checkInstall(fx, 'opencode')).toBe(true);
        expect(fx.records.probes()).toEqual([join(at.opencodeHome, 'opencode')]);
        expect(await chatThrough(fx, 'opencode')).toEqual({ exe: join(at.opencodeHome, 'opencode') });
      },
    );
  });

  it('an nvm node’s bin wins over PATH once the install folder’s binary fails the probe', async () => {
    await withLayout(
      async (at) => {
        await writeFakeAgent(at.opencodeHome, 'opencode', NOT_THE_AGENT);
        await writeFakeAgent(at.nvm('v20.11.0'), 'opencode');
        await writeFakeAgent(at.path, 'opencode');
      },
      async (fx, at) => {
        expect(await checkInstall(fx, 'opencode')).toBe(true);
        expect(fx.records.probes()).toEqual([join(at.opencodeHome, 'opencode'), join(at.nvm('v20.11.0'), 'opencode')]);
        expect(await chatThrough(fx, 'opencode')).toEqual({ exe: join(at.nvm('v20.11.0'), 'opencode') });
      },
    );
  });

  it('~/.local/bin, then the other agent’s folder, when nothing before them passes', async () => {
    await withLayout(
      async (at) => {
        await writeFakeAgent(at.path, 'kilo', { help: 'kilo: command is something else\n' });
        await writeFakeAgent(at.local, 'kilo');
        await writeFakeAgent(at.opencodeHome, 'kilo');
        await writeFakeAgent(at.kiloHome, 'opencode');
      },
      async (fx, at) => {
        expect(await checkInstall(fx, 'kilo')).toBe(true);
        expect(await chatThrough(fx, 'kilo')).toEqual({ exe: join(at.local, 'kilo') });
        // opencode only in kilo's folder: found there.
        expect(await checkInstall(fx, 'opencode')).toBe(true);
        expect(await chatThrough(fx, 'opencode')).toEqual({ exe: join(at.kiloHome, 'opencode') });
      },
    );
  });

  it('a candidate that is not an executable regular file is skipped without a probe', async () => {
    await withLayout(
      async (at) => {
        const notExecutable = await writeFakeAgent(at.opencodeHome, 'opencode');
        await chmod(notExecutable.path, 0o644);
        await mkdir(join(at.path, 'opencode')); // a folder by that name on PATH
        await writeFakeAgent(at.local, 'opencode');
      },
      async (fx, at) => {
        expect(await checkInstall(fx, 'opencode')).toBe(true);
        expect(fx.records.probes()).toEqual([join(at.local, 'opencode')]);
        expect(await chatThrough(fx, 'opencode')).toEqual({ exe: join(at.local, 'opencode') });
      },
    );
  });
});
