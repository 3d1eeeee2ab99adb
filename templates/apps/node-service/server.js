// A plain Node HTTP service: no dependencies. `PORT` comes from the environment (the daemon picks a free one).
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const { name } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const port = Number(process.env.PORT ?? 3000);

const server = createServer((request, response) => {
  const { pathname } = new URL(request.url ?? '/', 'http://localhost');
  if (request.method === 'GET' && pathname === '/') {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify({ service: name, ok: true }) + '\n');
    return;
  }
  response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  response.end('not found\n');
});

server.listen(port, () => console.log(`${name} listening on http://localhost:${port}/`));

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
