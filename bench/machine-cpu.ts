import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { RedisServer } from '../test/support/redis-server';

/**
 * CPU time, in ms, that each part of a benchmark has used so far on this machine: everything
 * but the app, whose processes count their own (bench/app-probe.ts). Two readings apart give the
 * cores each part used meanwhile, and what a checkout costs the machine, not only the app.
 * Where /proc is missing (not Linux), Postgres and the machine read NaN.
 */
export interface CpuTimes {
  /** This process: the load generator and its monitor, or the ceiling's replay while it runs. */
  load: number;
  /** Every process of the Postgres server, those that ended included. */
  postgres: number;
  /** The Redis server of the benchmark, by its own INFO. */
  redis: number;
  /** The whole machine: busy time summed over its cores, whoever used it. */
  machine: number;
}

const hasProc = (() => {
  try {
    readFileSync('/proc/stat');
    return true;
  } catch {
    return false;
  }
})();

/** Clock ticks a second, the unit of /proc's CPU times. */
const ticksPerSecond = (() => {
  if (!hasProc) return NaN;
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
const ticksToMs = (ticks: number) => (ticks * 1_000) / ticksPerSecond;

export interface ProcessTimes {
  pid: number;
  name: string;
  parent: number;
  /** Its own user and system time. */
  own: number;
  /** The user and system time of its children that ended and that it waited for. */
  children: number;
}

function processTimes(pid: string): ProcessTimes | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // ended while the list was read
  }
}

/** One line of /proc/PID/stat: the name is in parentheses and may hold spaces; the state (field 3) follows. */
export function parseStat(text: string): ProcessTimes {
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return {
    pid: Number(text.slice(0, text.indexOf(' '))),
    name: text.slice(text.indexOf('(') + 1, close),
    parent: Number(fields[1]),
    own: Number(fields[11]) + Number(fields[12]),
    children: Number(fields[13]) + Number(fields[14]),
  };
}

/**
 * The clock ticks used by a server made of processes named `name`, those that ended included: a
 * Postgres backend ends with its connection, and its time then counts in its parent's waited-for
 * children, the postmaster's (the process of that name whose parent is not one). A child of the
 * server that ended is counted once, in its parent; one that still runs, in itself.
 */
export function serverTicks(processes: ProcessTimes[], name: string): number {
  const server = processes.filter((p) => p.name === name);
  const pids = new Set(server.map((p) => p.pid));
  return server.reduce((sum, p) => sum + p.own + (pids.has(p.parent) ? 0 : p.children), 0);
}

/** Every process of the Postgres servers on this machine, or of the one whose postmaster is given. */
export function postgresCpuMs(postmaster?: number): number {
  if (!hasProc) return NaN;
  const processes = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(processTimes)
    .filter(
      (p): p is ProcessTimes =>
        p !== undefined && (postmaster === undefined || p.pid === postmaster || p.parent === postmaster),
    );
  return ticksToMs(serverTicks(processes, 'postgres'));
}

/** Busy time of all cores since boot, from /proc/stat's first line (idle and I/O wait left out). */
export function machineCpuMs(): number {
  return hasProc ? ticksToMs(busyTicks(readFileSync('/proc/stat', 'utf8'))) : NaN;
}

/** /proc/stat's `cpu` line: user nice system idle iowait irq softirq steal (guest is inside user). */
export function busyTicks(procStat: string): number {
  const [, user, nice, system, , , irq, softirq, steal = 0] = procStat.split('\n')[0].trim().split(/\s+/).map(Number);
  return user + nice + system + irq + softirq + steal;
}

/** user + system CPU of a Redis server, from its INFO cpu section. */
export function redisCpuMs(info: string): number {
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1_000;
}

export async function cpuTimes(redis: RedisServer): Promise<CpuTimes> {
  const info = await redis.command((client) => client.info('cpu'));
  const load = process.cpuUsage();
  return {
    load: (load.user + load.system) / 1_000,
    postgres: postgresCpuMs(),
    redis: redisCpuMs(info),
    machine: machineCpuMs(),
  };
}

export const cores = os.availableParallelism();
