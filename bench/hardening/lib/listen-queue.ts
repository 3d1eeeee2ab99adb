/**
 * The kernel's count of connections refused for a full accept queue (TcpExt ListenOverflows, ListenDrops in
 * /proc/net/netstat): machine-wide, so read before and after a load and compared.
 */
import { readFile } from 'node:fs/promises';

export async function listenQueueCounters(): Promise<{ overflows: number; drops: number }> {
  const text = await readFile('/proc/net/netstat', 'utf8').catch(() => '');
  const [names, values] = text.split('\n').filter((line) => line.startsWith('TcpExt:'));
  if (!names || !values) return { overflows: Number.NaN, drops: Number.NaN };
  const keys = names.split(/\s+/);
  const numbers = values.split(/\s+/).map(Number);
  return { overflows: numbers[keys.indexOf('ListenOverflows')] ?? Number.NaN, drops: numbers[keys.indexOf('ListenDrops')] ?? Number.NaN };
}
