/**
 * Hostile client paths as fast-check arbitraries, and the link fixture they are aimed at.
 *
 * Every backend builds the same abstract fixture (FUZZ_SEED_FILES plus a random set of links, LinkSpec) under its
 * own root, with an outside folder beside it whose name starts with the root's name (`<root>-outside`), so a
 * string-prefix containment test would take it for the root. The outside folder holds a random marker in its files'
 * contents and in one file's name: the escape oracle (./escape-oracle.ts) looks for that marker in every answer,
 * and the paths generated here never contain it (an error message echoing the path as sent must not look like a
 * leak). Links name `secret.txt`, never the marker file, for the same reason: a tree answer shows link text verbatim.
 *
 * What the generator mixes (hostilePath): `..` runs, absolute paths (the root's, the outside folder's, the parent's,
 * decoys in the temp folder), single and double percent-encoding, backslashes, NUL and control characters,
 * segments over 255 bytes and paths over 4096, Unicode look-alikes of `.` and `/` (U+2024, U+FF0E, U+2215,
 * U+FF0F, U+2044, U+FE52) and NFC/NFD variants, over the fixture's own names and links (which may point inside,
 * outside, down chains, nowhere, at themselves, or be flipped while requests run: LinkSwapper), and through a
 * folder LinkSwapper trades for a link to the outside folder and back while requests run.
 */
import fc from 'fast-check';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';

/** The fixture's files, relative to the root (a key ending in `/` is an empty folder). */
export const FUZZ_SEED_FILES: Readonly<Record<string, string>> = {
  'inside.txt': 'inside\n',
  'secret.txt': 'an inside file named like the outside one\n',
  'dir/nested.txt': 'nested\n',
  'dir/sub/deep.txt': 'deep\n',
  'café.txt': 'NFC name\n',
  'scratch/src.txt': 'a move or copy source\n',
  'empty/': '',
  // The folder FolderSwapper trades for a link to the outside folder: the same names on both sides.
  'swapped/secret.txt': 'an inside file where the outside one will be\n',
  'swapped/sub/deep.txt': 'inside deep\n',
};

/** Names the generator uses for segments: the fixture's own, so many paths land on something that exists. */
const INSIDE_NAMES = ['inside.txt', 'secret.txt', 'dir', 'nested.txt', 'sub', 'deep.txt', 'café.txt', 'scratch', 'empty', 'links', 'repo', '.agents', '.git', 'swapped'];

/** The outside folder's files; `MARKER` is replaced by the run's marker. The last one carries it in its name. */
export function outsideFiles(marker: string): Record<string, string> {
  return {
    'secret.txt': `outside secret ${marker}\n`,
    'sub/deep.txt': `outside deep ${marker}\n`,
    'package.json': JSON.stringify({ name: 'outside', private: true, description: marker }) + '\n',
    [`leak-${marker}.txt`]: `named leak ${marker}\n`,
  };
}

/** A fresh marker: letters and digits only, so it survives every encoding an answer may use but base64. */
export function newMarker(random: () => number = Math.random): string {
  let hex = '';
  for (let i = 0; i < 24; i++) hex += Math.floor(random() * 16).toString(16);
  return `FUZZMARK${hex}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Links

export type LinkKind =
  | 'inside-file'
  | 'inside-dir'
  | 'inside-abs'
  | 'outside-file'
  | 'outside-dir'
  | 'outside-rel'
  | 'outside-missing'
  | 'root-parent'
  | 'root-itself'
  | 'chain-outside'
  | 'chain-inside'
  | 'dangling'
  | 'self-loop'
  | 'loop-pair';

/** One link of the random set: what it is, abstractly; renderLinks turns it into link text for one backend. */
export interface LinkSpec {
  kind: LinkKind;
  /** Makes the name unique: `links/<kind>-<n>`. */
  n: number;
  /** Chains: how many hops before the final target (1…4). */
  hops: number;
}

const LINK_KINDS: LinkKind[] = [
  'inside-file', 'inside-dir', 'inside-abs', 'outside-file', 'outside-dir', 'outside-rel', 'outside-missing',
  'root-parent', 'root-itself', 'chain-outside', 'chain-inside', 'dangling', 'self-loop', 'loop-pair',
];

/** A random link set: every kind at least once (so each fixture has the dangerous ones), plus up to 10 more. */
export const linkSetArbitrary: fc.Arbitrary<LinkSpec[]> = fc
  .array(fc.record({ kind: fc.constantFrom(...LINK_KINDS), hops: fc.integer({ min: 1, max: 4 }) }), { maxLength: 10 })
  .map((extra) => [...LINK_KINDS.map((kind) => ({ kind, hops: 2 })), ...extra].map((spec, n) => ({ ...spec, n })));

/** The two links LinkSwapper flips: `swap` itself, and a chain that ends in it. */
export const SWAP_LINK = 'links/swap';
export const SWAP_CHAIN_LINK = 'links/swap-chain';
/** The folder LinkSwapper trades for a link to the outside folder, and where the folder waits meanwhile. */
export const SWAPPED_FOLDER = 'swapped';
export const SWAPPED_HELD = '.swapped-held';

/** A link to make: its path relative to the root and its text. */
export interface LinkToMake {
  path: string;
  target: string;
}

/** The links of `specs` (and the swap links, first pointing inside) for a root and its outside folder. */
export function renderLinks(specs: readonly LinkSpec[], root: string, outside: string): LinkToMake[] {
  const out: LinkToMake[] = [
    { path: SWAP_LINK, target: '../dir' },
    { path: SWAP_CHAIN_LINK, target: 'swap' },
  ];
  const outsideName = outside.slice(outside.lastIndexOf('/') + 1);
  for (const spec of specs) {
    const name = `links/${spec.kind}-${spec.n}`;
    const chain = (final: string) => {
      // name → name.h1 → … → final: every hop a link of its own.
      const hops = Array.from({ length: spec.hops }, (_, i) => `${name}.h${i + 1}`);
      const all = [name, ...hops];
      all.forEach((path, i) => out.push({ path, target: i + 1 < all.length ? all[i + 1]!.slice('links/'.length) : final }));
    };
    switch (spec.kind) {
      case 'inside-file': out.push({ path: name, target: '../inside.txt' }); break;
      case 'inside-dir': out.push({ path: name, target: '../dir' }); break;
      case 'inside-abs': out.push({ path: name, target: `${root}/dir/sub` }); break;
      case 'outside-file': out.push({ path: name, target: `${outside}/secret.txt` }); break;
      case 'outside-dir': out.push({ path: name, target: outside }); break;
      case 'outside-rel': out.push({ path: name, target: `../../${outsideName}/sub` }); break;
      case 'outside-missing': out.push({ path: name, target: `${outside}/created-through-a-link.txt` }); break;
      case 'root-parent': out.push({ path: name, target: '../..' }); break;
      case 'root-itself': out.push({ path: name, target: '..' }); break;
      case 'chain-outside': chain(`${outside}/secret.txt`); break;
      case 'chain-inside': chain('../dir/nested.txt'); break;
      case 'dangling': out.push({ path: name, target: '../no/such/file.txt' }); break;
      case 'self-loop': out.push({ path: name, target: `${spec.kind}-${spec.n}` }); break;
      case 'loop-pair':
        out.push({ path: name, target: `${spec.kind}-${spec.n}.other` });
        out.push({ path: `${name}.other`, target: `${spec.kind}-${spec.n}` });
        break;
    }
  }
  return out;
}

/** ./folder-trader.ts as LinkSwapper uses it. */
export interface FolderTraderLike {
  readonly trades: number;
  run(): void;
  pause(): Promise<void>;
}

/** What the swapper does to flip the swap link: a backend's own link operations. */
export interface LinkFlipper {
  /** Points `SWAP_LINK` at `target` (atomically where the backend can: a new link renamed over the old). */
  point(target: string): Promise<void>;
  /**
   * Trades the folder `SWAPPED_FOLDER` for a link to the outside folder (`out`), or back: a request that resolved a
   * path in the folder (inside) and then uses it finds the link there. Ignores a fixture a request changed.
   */
  swapFolder(out: boolean): Promise<void>;
}

/** swapFolder over a backend's own calls (the memory fs, the Node fs, the Durable Object's). */
export async function swapFolderThrough(
  fs: Pick<FileSystem, 'lstat' | 'rename' | 'symlink' | 'remove'>,
  root: string,
  outside: string,
  out: boolean,
): Promise<void> {
  const folder = `${root}/${SWAPPED_FOLDER}`;
  const held = `${root}/${SWAPPED_HELD}`;
  try {
    if (out) {
      await fs.rename(folder, held);
      await fs.symlink(outside, folder);
    } else if ((await fs.lstat(folder)).type === 'symlink') {
      // Only the link goes: a folder already back in place (the swapper's last step was a trade back) stays.
      await fs.remove(folder);
      await fs.rename(held, folder);
    }
  } catch {
    // A request moved or removed the folder (allowed: it is inside); the next reset makes it again.
  }
}

/**
 * Flips `links/swap` between a folder inside the root and the outside folder, as fast as the backend allows, while
 * requests run: a containment check that resolves a path and then uses it again (rather than the real path it
 * resolved) reads or writes outside in the window between the two.
 */
export class LinkSwapper {
  #running: Promise<void> | undefined;
  #stop = false;
  #steps = 0;
  #folderTrades = 0;

  /** `trader`: trades the folder on a thread of its own (./folder-trader.ts); this loop then only flips the link. */
  constructor(
    private readonly flipper: LinkFlipper,
    private readonly outside: string,
    private readonly trader?: FolderTraderLike,
  ) {}

  get linkFlips(): number {
    return this.#steps - this.#folderTrades;
  }

  get folderTrades(): number {
    return this.#folderTrades + (this.trader?.trades ?? 0);
  }

  start(): void {
    this.#stop = false;
    this.trader?.run();
    this.#running = (async () => {
      while (!this.#stop) {
        // Without a trader, even steps flip the link and odd ones trade the folder.
        if (this.trader || this.#steps % 2 === 0) await this.flipper.point(this.linkFlips % 2 === 0 ? this.outside : '../dir');
        else {
          await this.flipper.swapFolder(this.#folderTrades % 2 === 0);
          this.#folderTrades++;
        }
        this.#steps++;
        // Yield to the requests between flips: the point is to interleave with them, not to starve them.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
  }

  /** Stops and leaves the link pointing inside again. */
  async stop(): Promise<void> {
    this.#stop = true;
    await this.#running;
    this.#running = undefined;
    await this.trader?.pause();
    await this.flipper.point('../dir');
    await this.flipper.swapFolder(false);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Paths

/** Where a path is aimed: absolute spellings of the root, the outside folder and decoys need them. */
export interface PathTargets {
  root: string;
  outside: string;
  /** Absolute paths outside both (in the temp folder) that must never come to exist. */
  decoys: readonly string[];
  /** The fixture's link paths, relative to the root. */
  links: readonly string[];
}

/** Look-alikes of `.` and `..` that must stay plain names (never folded as a parent). */
const DOT_LOOKALIKES = ['\u2024\u2024', '\uFF0E\uFF0E', '\u2025', '.\u0301.', '\uFE52\uFE52', '..\u200b', '\u200b..', '. .', '...', '.. ', ' ..'];
/** Look-alikes of `/`, and encodings of `/` and `\`, that must stay part of a name. */
const SLASH_LOOKALIKES = ['\u2215', '\uFF0F', '\u2044', '\u29F8', '%2f', '%2F', '%252f', '%5c', '%255c'];
/** Encodings of `..` that must not be decoded a second time. */
const ENCODED_DOTS = ['%2e%2e', '%2E%2E', '.%2e', '%2e.', '%252e%252e', '%25252e%25252e', '..%00', '..%2500', '%c0%ae%c0%ae', '..%c0%af'];

/** A control character or NUL (NUL must be refused, the others are only odd names). */
const controlChar = fc.integer({ min: 0, max: 31 }).map((code) => String.fromCharCode(code));

/** One segment of a composed path. */
function segmentArbitrary(targets: PathTargets): fc.Arbitrary<string> {
  const outsideName = targets.outside.slice(targets.outside.lastIndexOf('/') + 1);
  const rootName = targets.root.slice(targets.root.lastIndexOf('/') + 1);
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant('..') },
    { weight: 2, arbitrary: fc.constantFrom('.', '', '...') },
    { weight: 6, arbitrary: fc.constantFrom(...INSIDE_NAMES) },
    { weight: 4, arbitrary: fc.constantFrom(...targets.links.map((link) => link.slice(link.lastIndexOf('/') + 1))) },
    { weight: 5, arbitrary: fc.constantFrom(outsideName, rootName, 'secret.txt', 'sub', 'deep.txt', 'package.json', 'created-here.txt') },
    { weight: 3, arbitrary: fc.constantFrom(...DOT_LOOKALIKES) },
    { weight: 3, arbitrary: fc.constantFrom(...ENCODED_DOTS) },
    { weight: 1, arbitrary: fc.constantFrom(...SLASH_LOOKALIKES).map((slash) => `..${slash}..`) },
    // Over 255 bytes: ASCII, and two-byte characters (128 of them are 256 bytes but only 128 UTF-16 units).
    { weight: 1, arbitrary: fc.integer({ min: 250, max: 300 }).map((n) => 'a'.repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 126, max: 140 }).map((n) => 'é'.repeat(n)) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('..', 'inside.txt', 'dir', ''), controlChar).map(([name, char]) => name + char) },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }) },
  );
}

const separatorArbitrary = fc.oneof(
  { weight: 12, arbitrary: fc.constant('/') },
  { weight: 2, arbitrary: fc.constantFrom('//', '/./', '\\', '\\\\', '/\\') },
  { weight: 2, arbitrary: fc.constantFrom(...SLASH_LOOKALIKES) },
);

/** How a composed path may start. */
function prefixArbitrary(targets: PathTargets): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant('') },
    { weight: 2, arbitrary: fc.constantFrom('./', '/', '//', '\\', '~/', 'file://', '\\\\?\\', 'C:\\', 'C:/', '%2e%2e/', '%2f') },
    { weight: 3, arbitrary: fc.constantFrom(`${targets.root}/`, `${targets.outside}/`, `${targets.root}/../`, `${targets.root}/..`, `${targets.root}`) },
  );
}

/** `..` runs aimed at the outside folder, the root's parent and the decoys: the classic escapes, spelled straight. */
function classicEscape(targets: PathTargets): fc.Arbitrary<string> {
  const outsideName = targets.outside.slice(targets.outside.lastIndexOf('/') + 1);
  const tail = fc.constantFrom(`${outsideName}/secret.txt`, `${outsideName}/sub/deep.txt`, `${outsideName}/sub`, outsideName, `${outsideName}/new.txt`, '', 'new-beside-root.txt');
  return fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 12 }), tail).map(([n, t]) => '../'.repeat(n) + t),
    fc.tuple(fc.constantFrom('dir/', 'dir/sub/', 'links/', './', 'nope/'), fc.integer({ min: 1, max: 6 }), tail).map(([lead, n, t]) => lead + '../'.repeat(n) + t),
    fc.constantFrom(
      `${targets.outside}/secret.txt`,
      `${targets.outside}/sub`,
      targets.outside,
      `${targets.outside}/new.txt`,
      `${targets.root}/../${outsideName}/secret.txt`,
      `${targets.root}/dir/../../${outsideName}/secret.txt`,
      `${targets.root}-outside/secret.txt`,
      ...targets.decoys,
      ...targets.decoys.map((decoy) => `${decoy}/inner.txt`),
    ),
    // Through the folder traded for a link out while requests run, then more path.
    fc.constantFrom('', '/', '/secret.txt', '/sub', '/sub/deep.txt', '/new.txt', '/sub/new.txt', '/new-folder/new.txt').map((rest) => SWAPPED_FOLDER + rest),
    // Through the links: a link to outside, then more path.
    fc.tuple(fc.constantFrom(...targets.links), fc.constantFrom('', '/', '/secret.txt', '/sub/deep.txt', '/..', '/../secret.txt', '/new.txt', '/deep.txt', '/nested.txt')).map(([link, rest]) => link + rest),
  );
}

/** A path from random segments, separators and a prefix. */
function composedPath(targets: PathTargets): fc.Arbitrary<string> {
  return fc
    .tuple(prefixArbitrary(targets), fc.array(fc.tuple(segmentArbitrary(targets), separatorArbitrary), { minLength: 1, maxLength: 8 }), fc.boolean())
    .map(([prefix, parts, trailing]) => {
      const body = parts.map(([segment, sep], i) => (i === parts.length - 1 && !trailing ? segment : segment + sep)).join('');
      return prefix + body;
    });
}

/** Encodes every `.` and `/` (or the whole path) once or twice: a server that decodes twice would see `../`. */
function encodeDots(path: string, times: number): string {
  let out = path;
  for (let i = 0; i < times; i++) out = out.replace(/%/g, '%25').replace(/\./g, '%2e').replace(/\//g, '%2f');
  return out;
}

/** What a path may go through after it is made. */
const transforms: Record<string, (path: string) => string> = {
  none: (p) => p,
  percentOnce: (p) => encodeDots(p, 1),
  percentTwice: (p) => encodeDots(p, 2),
  encodeURIComponent: (p) => encodeURIComponent(p),
  backslashes: (p) => p.replace(/\//g, '\\'),
  nfd: (p) => p.normalize('NFD'),
  nfc: (p) => p.normalize('NFC'),
  fullwidthDots: (p) => p.replace(/\.\./g, '\uFF0E\uFF0E'),
  onedotLeader: (p) => p.replace(/\.\./g, '\u2024\u2024'),
  divisionSlash: (p) => p.replace(/\//g, '\u2215'),
  fullwidthSlash: (p) => p.replace(/\//g, '\uFF0F'),
  nulAfter: (p) => `${p}\0.txt`,
  nulInside: (p) => p.replace('/', '/\0'),
  trailingSlash: (p) => `${p}/`,
  trailingDot: (p) => `${p}/.`,
  trailingDotDot: (p) => `${p}/..`,
  // Over 4096 bytes: the path repeated behind enough `a/` segments.
  overLong: (p) => `${'a/'.repeat(2100)}${p}`,
  overLongUp: (p) => `${'dir/'.repeat(1100)}${'../'.repeat(1101)}${p}`,
  newline: (p) => `${p}\n`,
  spaces: (p) => ` ${p} `,
};

/** Every generated path: a classic escape or a composed path, then one transform (mostly none). */
export function hostilePath(targets: PathTargets): fc.Arbitrary<string> {
  const transform = fc.oneof(
    { weight: 10, arbitrary: fc.constant('none') },
    { weight: 6, arbitrary: fc.constantFrom(...Object.keys(transforms)) },
  );
  return fc
    .tuple(fc.oneof({ weight: 3, arbitrary: classicEscape(targets) }, { weight: 4, arbitrary: composedPath(targets) }), transform)
    .map(([path, name]) => transforms[name]!(path));
}

/** `hostilePath` with a variant number (which field of a two-path route gets it, and similar choices). */
export function hostileCase(targets: PathTargets): fc.Arbitrary<{ path: string; variant: number }> {
  return fc.record({ path: hostilePath(targets), variant: fc.nat({ max: 1_000_000 }) });
}
