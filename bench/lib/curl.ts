/**
 * One download by `curl -o /dev/null`: a C client in its own process that throws the bytes away, so the figure
 * is the server's speed. Node clients (undici) read a loopback stream slower than a bare node:http server
 * writes it, which hid most of the gap between ours and the anchor.
 */
import { spawn } from 'node:child_process';

export interface CurlDownload {
  status: number;
  bytes: number;
  /** curl's own `%{speed_download}`: body bytes over the transfer's time, in bytes per second. */
  bytesPerSecond: number;
}

export function curlDownload(url: string, headers: Record<string, string> = {}): Promise<CurlDownload> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{speed_download}'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const [status, bytes, speed] = out.trim().split(' ').map(Number);
      if (code !== 0 || !Number.isFinite(speed)) return reject(new Error(`curl ${url} failed (${code}): ${out}`));
      resolve({ status: status!, bytes: bytes!, bytesPerSecond: speed! });
    });
  });
}
