/**
 * The Chat view of the side bar (docs/panel.md#agent-chat): pick an installed agent CLI (and a model, if its list
 * loads), write a message, and the CLI's output streams into the conversation line by line; Stop cancels a run.
 * Everything goes over the shared `/ws` client (docs/noide-protocol.md#agent-chat) through ./chat-runs.ts.
 * Output is text only: every line lands in `textContent`, never in HTML.
 */
import { h, replaceChildren } from '../dom.ts';
import { messageOf } from '../shared/errors.ts';
import { parseOpenAddress } from '../shell/address.ts';
import type { PanelContext } from '../shell/panel-context.ts';
import { CHAT_AGENTS, ChatRuns, type ChatAgentName, type ChatEnd } from './chat-runs.ts';
import './chat.css';

type Model = { id: string; label: string };

export function mountChat(ctx: PanelContext): void {
  const agentSelect = h('select', { name: 'agent', 'aria-label': 'agent' });
  const modelSelect = h('select', { name: 'model', 'aria-label': 'model' });
  const modelsNote = h('p', { class: 'chat-note chat-models-note', hidden: true });
  const setupNote = h('div', { class: 'chat-note chat-setup-note', role: 'status' }, 'Looking for agent CLIs…');
  const recheck = h('button', { type: 'button', class: 'chat-recheck', title: 'Look for installed agent CLIs again' }, 'Check again');
  const pickers = h(
    'div',
    { class: 'chat-pickers', hidden: true },
    h('label', {}, h('span', {}, 'Agent'), agentSelect),
    h('label', {}, h('span', {}, 'Model'), modelSelect),
  );
  const log = h('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-label': 'conversation' });
  const attachBox = h('input', { type: 'checkbox', name: 'attach' });
  const attachName = h('code', {});
  const attachRow = h('label', { class: 'chat-attach', hidden: true }, attachBox, ' Attach ', attachName);
  const message = h('textarea', {
    name: 'message',
    rows: 3,
    'aria-label': 'message',
    placeholder: 'Message (Enter sends, Shift+Enter: new line)',
  });
  const send = h('button', { type: 'submit', class: 'chat-send' }, 'Send');
  const stop = h('button', { type: 'button', class: 'chat-stop', hidden: true }, 'Stop');
  const compose = h('form', { class: 'chat-compose', hidden: true, 'aria-label': 'new message' }, attachRow, message, h('div', { class: 'chat-buttons' }, send, stop));
  const element = h('section', { class: 'chat-view', 'aria-label': 'agent chat' }, h('div', { class: 'chat-setup' }, setupNote, pickers, modelsNote), log, compose);

  let runs: ChatRuns | undefined;
  let current: { id: string } | undefined;
  const modelLists = new Map<ChatAgentName, Promise<Model[]>>();
  /** Each showModels call's number: only the latest one fills the model picker (A→B→A while A's list loads). */
  let modelsShown = 0;

  ctx.shell.addView({
    id: 'chat',
    title: 'Chat',
    element,
    onShow: () => {
      if (!ctx.capabilities.webSockets || !ctx.capabilities.chat) {
        element.dataset.agents = 'unavailable';
        replaceChildren(setupNote, h('p', {}, 'Agent chat needs the daemon running on a machine, where it can start agent CLIs; this workspace server cannot.'));
        pickers.hidden = true;
        compose.hidden = true;
        return;
      }
      if (!runs) {
        runs = new ChatRuns(ctx.rpc());
        void findAgents();
      }
      showAttachable();
      if (!compose.hidden) message.focus();
    },
  });

  async function findAgents(): Promise<void> {
    pickers.hidden = true;
    compose.hidden = true;
    modelsNote.hidden = true;
    replaceChildren(setupNote, 'Looking for agent CLIs…');
    element.dataset.agents = 'checking';
    const answers = await Promise.allSettled(CHAT_AGENTS.map((agent) => ctx.rpc().call('chat_check_install', { command: agent })));
    const installed = CHAT_AGENTS.filter((_, i) => answers[i]!.status === 'fulfilled' && (answers[i] as PromiseFulfilledResult<boolean>).value);
    const failures = answers.flatMap((answer, i) => (answer.status === 'rejected' ? [`${CHAT_AGENTS[i]}: ${messageOf(answer.reason)}`] : []));
    if (installed.length === 0) {
      element.dataset.agents = 'none';
      replaceChildren(
        setupNote,
        failures.length === CHAT_AGENTS.length
          ? h('p', { class: 'chat-error' }, `Could not ask the daemon which agents are installed: ${failures.join('; ')}`)
          : h('p', {}, `No agent CLI is installed on the daemon's machine. It can run: ${CHAT_AGENTS.join(', ')}. Install one where the daemon finds it (its PATH), then check again.`),
        failures.length > 0 && failures.length < CHAT_AGENTS.length ? h('p', { class: 'chat-error' }, failures.join('; ')) : null,
        recheck,
      );
      return;
    }
    element.dataset.agents = installed.join(' ');
    const previous = agentSelect.value;
    replaceChildren(agentSelect, ...installed.map((agent) => h('option', { value: agent }, agent)));
    if ((installed as string[]).includes(previous)) agentSelect.value = previous;
    replaceChildren(setupNote, failures.length > 0 ? h('p', { class: 'chat-error' }, failures.join('; ')) : null);
    pickers.hidden = false;
    compose.hidden = false;
    void showModels(agentSelect.value as ChatAgentName);
  }

  async function showModels(agent: ChatAgentName): Promise<void> {
    const shown = ++modelsShown;
    replaceChildren(modelSelect, h('option', { value: '' }, 'Default model'));
    modelsNote.hidden = false;
    modelsNote.classList.remove('chat-error');
    modelsNote.textContent = 'Loading models…';
    element.dataset.models = 'loading';
    let list = modelLists.get(agent);
    if (!list) {
      list = ctx.rpc().call('chat_models', { agent });
      modelLists.set(agent, list);
      // A failure is not kept: the next pick of the agent asks again.
      list.catch(() => modelLists.delete(agent));
    }
    try {
      const models = await list;
      if (shown !== modelsShown) return;
      modelSelect.append(...models.map((model) => h('option', { value: model.id }, model.label)));
      modelsNote.hidden = true;
      element.dataset.models = 'ready';
    } catch (error) {
      if (shown !== modelsShown) return;
      modelsNote.classList.add('chat-error');
      modelsNote.textContent = `Could not list ${agent}'s models: ${messageOf(error)}. Messages use the CLI's default model.`;
      element.dataset.models = 'failed';
    }
  }

  /** The file the address says is open (`#open=<path>[:line[:col]]`, shell/address.ts), if any. */
  function openPath(): string | undefined {
    return parseOpenAddress(location.hash)?.path;
  }

  function showAttachable(): void {
    const path = openPath();
    attachRow.hidden = path === undefined;
    attachName.textContent = path ?? '';
  }

  function setRunning(running: boolean): void {
    send.hidden = running;
    stop.hidden = !running;
    stop.disabled = false;
    agentSelect.disabled = running;
    element.dataset.running = String(running);
  }

  async function submit(): Promise<void> {
    const prompt = message.value;
    if (!runs || current || prompt.trim() === '') return;
    const agent = agentSelect.value as ChatAgentName;
    const model = modelSelect.value;
    const attachPath = !attachRow.hidden && attachBox.checked ? openPath() : undefined;
    const turn = newTurn(agent, model, prompt, attachPath);
    message.value = '';
    setRunning(true);
    const placeholder = { id: '' };
    current = placeholder;
    const finish = (end: ChatEnd) => {
      turn.end(end);
      if (current === placeholder) current = undefined;
      setRunning(false);
      message.focus();
    };
    let attachments: { name: string; base64: string }[] = [];
    if (attachPath !== undefined) {
      try {
        attachments = [{ name: attachPath, base64: await ctx.rpc().call('read_file_base64', { path: attachPath }) }];
      } catch (error) {
        return finish({ state: 'error', message: `could not attach ${attachPath}: ${messageOf(error)}` });
      }
    }
    placeholder.id = runs.start(
      { agent, prompt, ...(model ? { model } : {}), attachments },
      {
        chunk: (stream, text) => turn.line(stream, text),
        end: finish,
        afterInterruption: (note) => turn.note(note),
      },
    );
    turn.setId(placeholder.id);
  }

  function newTurn(agent: string, model: string, prompt: string, attachPath: string | undefined) {
    const answer = h('div', { class: 'chat-answer' });
    const endText = h('span', { class: 'chat-end' }, 'running…');
    const state = h('div', { class: 'chat-state' }, endText);
    const article = h(
      'article',
      { class: 'chat-turn', 'data-state': 'running' },
      h(
        'div',
        { class: 'chat-user' },
        h('div', { class: 'chat-who' }, `You → ${agent}${model ? ` (${model})` : ''}${attachPath ? `, with ${attachPath}` : ''}`),
        h('div', { class: 'chat-prompt' }, prompt),
      ),
      answer,
      state,
    );
    log.append(article);
    scrollToEnd(true);
    return {
      setId(id: string) {
        article.dataset.id = id;
      },
      line(stream: 'stdout' | 'stderr', text: string) {
        const stick = atEnd();
        answer.append(h('div', { class: 'chat-line', 'data-stream': stream }, text));
        scrollToEnd(stick);
      },
      end(end: ChatEnd) {
        article.dataset.state = end.state;
        endText.textContent =
          end.state === 'done'
            ? 'done'
            : end.state === 'cancelled'
              ? `cancelled${end.detail ? ` (${end.detail})` : ''}`
              : end.state === 'error'
                ? `error: ${end.message}`
                : 'interrupted: the connection to the daemon dropped; the rest of this answer is lost';
        if (end.state === 'error') endText.setAttribute('role', 'alert');
        scrollToEnd(atEnd());
      },
      note(text: string) {
        article.dataset.after = 'noted';
        state.append(h('div', { class: 'chat-after' }, text));
      },
    };
  }

  function atEnd(): boolean {
    return log.scrollHeight - log.scrollTop - log.clientHeight < 24;
  }

  function scrollToEnd(stick: boolean): void {
    if (stick) log.scrollTop = log.scrollHeight;
  }

  compose.addEventListener('submit', (event) => {
    event.preventDefault();
    submit().catch((error: unknown) => ctx.status(`chat: ${messageOf(error)}`, 'error'));
  });
  message.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    compose.requestSubmit();
  });
  message.addEventListener('focus', showAttachable);
  window.addEventListener('hashchange', showAttachable);
  stop.addEventListener('click', () => {
    if (!runs || !current?.id) return;
    stop.disabled = true;
    runs.cancel(current.id).catch((error: unknown) => {
      stop.disabled = false;
      ctx.status(`Could not stop the chat: ${messageOf(error)}`, 'error');
    });
  });
  agentSelect.addEventListener('change', () => void showModels(agentSelect.value as ChatAgentName));
  recheck.addEventListener('click', () => void findAgents());
}
