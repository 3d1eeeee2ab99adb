/**
 * The postings of every term in one growable Uint32Array: per term a chain of blocks `[next, size, entry…]`
 * whose sizes double (4, 8, … 4096 entries), each entry a document id and its term frequency packed into 32
 * bits (id × 256 + min(tf, 255): BM25's tf saturates long before 255). One array instead of an array per term
 * because most terms are in one or two files, and a JS array or typed array per term costs 100-200 bytes of
 * headers before its first entry; here a rare term costs 24 bytes and an entry 4 (plus block slack).
 */

export const MAX_DOC_ID = 2 ** 24 - 1;
export const MAX_TF = 255;

const FIRST_BLOCK = 4;
const LAST_BLOCK = 4096;
const HEADER = 2;
const NONE = 0;

export class PostingArena {
  private arena: Uint32Array = new Uint32Array(1 << 16);
  /** Offset 0 is never a block, so 0 means "none". */
  private used = 1;
  /** Per term id: first block, last block, entries in the last block, entries in all. */
  private heads: Uint32Array = new Uint32Array(1024);
  private tails: Uint32Array = new Uint32Array(1024);
  private tailUsed: Uint32Array = new Uint32Array(1024);
  private counts: Uint32Array = new Uint32Array(1024);
  private terms = 0;

  get termCount(): number {
    return this.terms;
  }

  get byteLength(): number {
    return this.arena.byteLength + 4 * (this.heads.length * 4);
  }

  /** A new empty posting list; its id. */
  addTerm(): number {
    if (this.terms === this.heads.length) {
      this.heads = grown(this.heads, this.terms * 2);
      this.tails = grown(this.tails, this.terms * 2);
      this.tailUsed = grown(this.tailUsed, this.terms * 2);
      this.counts = grown(this.counts, this.terms * 2);
    }
    const id = this.terms++;
    this.heads[id] = this.tails[id] = this.tailUsed[id] = this.counts[id] = NONE;
    return id;
  }

  push(term: number, doc: number, tf: number): void {
    let tail = this.tails[term]!;
    if (tail === NONE || this.tailUsed[term] === this.arena[tail + 1]) {
      const size = tail === NONE ? FIRST_BLOCK : Math.min(LAST_BLOCK, this.arena[tail + 1]! * 2);
      const block = this.allocate(size);
      if (tail === NONE) this.heads[term] = block;
      else this.arena[tail] = block;
      this.tails[term] = tail = block;
      this.tailUsed[term] = 0;
    }
    this.arena[tail + HEADER + this.tailUsed[term]!] = doc * 256 + Math.min(tf, MAX_TF);
    this.tailUsed[term]!++;
    this.counts[term]!++;
  }

  /** Entries of `term` (live and dead), in the order pushed. */
  size(term: number): number {
    return this.counts[term]!;
  }

  /** Calls `visit(doc, tf)` for every entry of `term`, in the order pushed. */
  forEach(term: number, visit: (doc: number, tf: number) => void): void {
    const arena = this.arena;
    for (let block = this.heads[term]!; block !== NONE; block = arena[block]!) {
      const end = block + HEADER + (block === this.tails[term] ? this.tailUsed[term]! : arena[block + 1]!);
      for (let at = block + HEADER; at < end; at++) {
        const entry = arena[at]!;
        visit(entry >>> 8, entry & 0xff);
      }
    }
  }

  private allocate(size: number): number {
    const need = this.used + HEADER + size;
    if (need > this.arena.length) this.arena = grown(this.arena, Math.max(need, Math.ceil(this.arena.length * 1.5)));
    const block = this.used;
    this.arena[block] = NONE;
    this.arena[block + 1] = size;
    this.used = need;
    return block;
  }
}

function grown(array: Uint32Array, length: number): Uint32Array {
  const next = new Uint32Array(length);
  next.set(array);
  return next;
}
