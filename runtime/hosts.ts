/**
 * DNS-rebinding defence for servers running without a token: a page on evil.example can point its own name at
 * 127.0.0.1 and then talk to us "same-origin". Its requests still carry `Host: evil.example`, so an open
 * (--no-auth) server answers only requests addressed to a loopback name or to the address it is bound to.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '[::1]' || name === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
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
  return isLoopbackHostname(hostname) || hostname === bound || hostname === `[${bound}]`;
}
