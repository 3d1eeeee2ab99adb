/**
 * Loopback names, for two decisions: binding without a token is allowed only on loopback (the CLI), and an
 * open (--no-auth) server answers only requests addressed to a loopback name or its bound address — the
 * DNS-rebinding defence: a page on evil.example can point its own name at 127.0.0.1 and talk to us
 * "same-origin", but its requests still carry `Host: evil.example`.
 */

/** localhost (and *.localhost), 127.0.0.0/8 and ::1, also bracketed or as an IPv4-mapped address. */
export function isLoopbackHost(host: string): boolean {
  let name = host.toLowerCase().replace(/\.$/, '');
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name.startsWith('::ffff:')) name = name.slice('::ffff:'.length);
  const ipv4 = name.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (ipv4) return ipv4.slice(1).every((octet) => Number(octet) <= 255) && ipv4[1] === '127';
  return /^(0{0,4}:){2,7}0{0,3}1$/.test(name);
}

/** Whether a request's Host names this server: a loopback name, or exactly the bound host. */
export function isAllowedHost(request: Request, boundHost: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(request.url).hostname;
  } catch {
    return false;
  }
  const bound = boundHost.toLowerCase();
  return isLoopbackHost(hostname) || hostname === bound || hostname === `[${bound}]`;
}
