// A real `ctxls serve` over stdio, driven with vscode-jsonrpc as vscode-languageclient would
// (the client itself needs the `vscode` module, which only exists inside VS Code).

import { ChildProcess, spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CancellationToken,
  createMessageConnection,
  MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';

export const REPO = path.resolve(__dirname, '..', '..', '..', '..');
export const EXAMPLE = path.join(REPO, 'examples', 'workspace');
const TIMEOUT_MS = 30_000;

export function serverCommand(): string[] {
  const raw = process.env.CTXLS_SERVER_CMD;
  if (raw === undefined || raw === '') return ['ctxls', 'serve'];
  const cmd: unknown = JSON.parse(raw);
  if (!Array.isArray(cmd) || cmd.length === 0 || !cmd.every((c) => typeof c === 'string')) {
    throw new Error(`CTXLS_SERVER_CMD must be a JSON array of strings, got ${raw}`);
  }
  return cmd as string[];
}

/** A fresh copy of the example workspace in the temp folder, so nothing a test (or a bug in
 * the server) does can touch the checkout. */
export function copyWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxls-vscode-ws-'));
  fs.cpSync(EXAMPLE, dir, { recursive: true });
  return fs.realpathSync(dir);
}

/** Every file under `root` with the sha256 of its bytes. */
export function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(path.relative(root, full), crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex'));
    }
  };
  walk(root);
  return out;
}

export function fileUri(root: string, rel: string): string {
  return pathToFileURL(path.join(root, rel)).href;
}

export interface Session {
  root: string;
  connection: MessageConnection;
  initializeResult: { capabilities: { positionEncoding?: string } };
  notifications: { method: string; params: unknown }[];
  request<R>(method: string, params: unknown, token?: CancellationToken): Promise<R>;
  stderr(): string;
  close(): Promise<number | null>;
}

function withTimeout<R>(p: Promise<R>, what: string, stderr: () => string): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer in ${TIMEOUT_MS} ms; server stderr:\n${stderr()}`)),
      TIMEOUT_MS,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export async function startServer(
  root: string,
  initializationOptions: Record<string, unknown> = {},
  { cmd = serverCommand(), waitForScan = true }: { cmd?: string[]; waitForScan?: boolean } = {},
): Promise<Session> {
  const [command, ...args] = cmd;
  // The persistent index goes to a temp cache, never the user's (nor the workspace).
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxls-vscode-cache-'));
  const proc: ChildProcess = spawn(command, args, {
    cwd: os.tmpdir(),
    env: { ...process.env, XDG_CACHE_HOME: cache },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  // Drained always: a server whose stderr pipe fills up blocks.
  proc.stderr!.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString('utf8')).slice(-20_000);
  });
  const spawnFailed = new Promise<never>((_, reject) => {
    proc.once('error', (e) => reject(new Error(`could not start ${JSON.stringify([command, ...args])}: ${e.message}`)));
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const connection = createMessageConnection(
    new StreamMessageReader(proc.stdout!),
    new StreamMessageWriter(proc.stdin!),
  );
  const notifications: { method: string; params: unknown }[] = [];
  connection.onNotification((method, params) => {
    notifications.push({ method, params });
  });
  // Server-to-client requests (registrations, progress tokens) get an empty answer, as
  // vscode-languageclient gives for what it does not handle.
  connection.onRequest(() => null);
  connection.listen();
  const stderr = (): string => err;
  const request = <R>(method: string, params: unknown, token?: CancellationToken): Promise<R> =>
    withTimeout(
      // vscode-jsonrpc takes every argument that is no token as a param: never pass undefined.
      Promise.race([
        token === undefined ? connection.sendRequest<R>(method, params) : connection.sendRequest<R>(method, params, token),
        spawnFailed,
      ]),
      method,
      stderr,
    );

  let initializeResult: Session['initializeResult'];
  try {
    const uri = pathToFileURL(root).href;
    initializeResult = await request<Session['initializeResult']>('initialize', {
      processId: process.pid,
      clientInfo: { name: 'ctxls-vscode-test' },
      rootUri: uri,
      workspaceFolders: [{ uri, name: path.basename(root) }],
      // What vscode-languageclient 9 offers for positions: UTF-16 only.
      capabilities: { general: { positionEncodings: ['utf-16'] } },
      initializationOptions,
    });
    await connection.sendNotification('initialized', {});
    if (waitForScan) await request('ctx/status', { wait: true });
  } catch (e) {
    // A server that failed its start must not outlive the test (nor keep Node running).
    proc.kill('SIGKILL');
    connection.dispose();
    throw e;
  }

  return {
    root,
    connection,
    initializeResult,
    notifications,
    request,
    stderr,
    async close() {
      let failure: unknown;
      try {
        await withTimeout(connection.sendRequest('shutdown'), 'shutdown', stderr);
        await connection.sendNotification('exit');
      } catch (e) {
        failure = e;
      }
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      connection.dispose();
      fs.rmSync(cache, { recursive: true, force: true });
      if (failure !== undefined) throw failure;
      return code;
    },
  };
}
