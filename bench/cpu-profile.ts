import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time the thread was not idle, in ms. */
  busyMs: number;
  /** Share of busy time by where it was spent: the package, our src/, Node, GC. */
  byPackage: Array<{ name: string; self: number; charged: number }>;
  /** The functions with the most self time. */
  topFunctions: Array<{ name: string; where: string; self: number }>;
}

const OWN_CATEGORIES = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

/** Where a frame's code lives: a package, a folder of ours, Node itself, or a VM category. */
function categoryOf(frame: ProfileNode['callFrame']): string {
  if (OWN_CATEGORIES.has(frame.functionName)) return frame.functionName;
  const url = frame.url;
  const inPackage = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inPackage) return inPackage[1];
  const ours = /\/(src\/(?:modules|infra|operations)\/[^/]+|src)\//.exec(url);
  if (ours) return ours[1];
  if (/\/bench\//.test(url)) return 'the bench probe';
  if (url.startsWith('node:') || url === '') return 'node';
  return 'other';
}

/**
 * Summarizes a V8 CPU profile by package. `self` is the time in a package's own functions;
 * `charged` adds the time in Node's internals and native code (socket writes, JSON, timers) to
 * the package whose code called into them, which says who the time was spent for: writev under
 * pg's query submission is pg's.
 */
export function summarizeProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfMicros = new Map<number, number>();
  // timeDeltas[i] is the time before sample i: what sample i stands for is the time until the next.
  profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));

  const chargedTo = (node: ProfileNode): string => {
    const own = categoryOf(node.callFrame);
    if (own !== 'node') return own;
    for (let up = parent.get(node.id); up !== undefined; up = parent.get(up)) {
      const category = categoryOf(byId.get(up)!.callFrame);
      if (category !== 'node' && category !== '(root)') return category;
    }
    return 'node';
  };

  // The probe's own answers (starting and stopping this very profile, writing files) are the
  // bench's doing, not the app's: left out.
  const probeControl = new Map<number, boolean>();
  const underProbeControl = (id: number): boolean => {
    let known = probeControl.get(id);
    if (known === undefined) {
      const { functionName, url } = byId.get(id)!.callFrame;
      const up = parent.get(id);
      known = (functionName === 'answer' && /\/bench\//.test(url)) || (up !== undefined && underProbeControl(up));
      probeControl.set(id, known);
    }
    return known;
  };

  const self = new Map<string, number>();
  const charged = new Map<string, number>();
  const functions = new Map<string, { name: string; where: string; self: number }>();
  let busy = 0;
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id)!;
    const own = categoryOf(node.callFrame);
    if (own === '(idle)' || underProbeControl(id)) continue;
    busy += micros;
    self.set(own, (self.get(own) ?? 0) + micros);
    const payer = chargedTo(node);
    charged.set(payer, (charged.get(payer) ?? 0) + micros);
    const name = node.callFrame.functionName || '(anonymous)';
    const key = `${name}@${own}`;
    const entry = functions.get(key) ?? { name, where: own, self: 0 };
    entry.self += micros;
    functions.set(key, entry);
  }
  const share = (micros: number) => (busy === 0 ? 0 : micros / busy);
  const names = new Set([...self.keys(), ...charged.keys()]);
  return {
    busyMs: busy / 1_000,
    byPackage: [...names]
      .map((name) => ({ name, self: share(self.get(name) ?? 0), charged: share(charged.get(name) ?? 0) }))
      .sort((a, b) => b.charged - a.charged),
    topFunctions: [...functions.values()]
      .sort((a, b) => b.self - a.self)
      .slice(0, 10)
      .map((f) => ({ ...f, self: share(f.self) })),
  };
}
