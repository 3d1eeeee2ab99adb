/** The answer of `GET /workspace/health` (docs/intentic-projects.md#health; the contract's shape). */
export interface Hotspot {
  path: string;
  commits: number;
  adds: number;
  dels: number;
  complexity: number;
  score: number;
  latestMs: number;
}

export interface HealthModule {
  path: string;
  exports: number;
}

export interface Freshness {
  state: 'building' | 'stale' | 'fresh';
  ageMs: number;
  /** While building: the share of the scope's files measured so far (0–1). */
  progress?: number;
  /** While stale: files still to measure again. */
  behind?: number;
}

export interface HealthReport {
  repo: string;
  totals: { files: number; symbols: number; complexity: number; hotspots: number };
  hotspots: Hotspot[];
  modules: HealthModule[];
  freshness: Freshness;
}
