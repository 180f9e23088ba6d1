import { busyTicks, parseStat, redisCpuMs, serverTicks } from './machine-cpu';

const stat = (pid: number, name: string, parent: number, own: [number, number], children: [number, number]) =>
  `${pid} (${name}) S ${parent} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${own.join(' ')} ${children.join(' ')} 20 0 1 0`;

describe('the machine CPU of a benchmark', () => {
  it('reads a process line whose name holds spaces and parentheses', () => {
    expect(parseStat(stat(42, 'tmux: server (x)', 1, [30, 12], [5, 2]))).toEqual({
      pid: 42,
      name: 'tmux: server (x)',
      parent: 1,
      own: 42,
      children: 7,
    });
  });

  it("counts a server's running processes and, once, those that ended in its root", () => {
    const processes = [
      stat(100, 'postgres', 1, [50, 10], [900, 100]), // the postmaster: 1000 ticks of backends that ended
      stat(101, 'postgres', 100, [20, 5], [0, 0]), // a backend still running
      stat(102, 'postgres', 100, [7, 3], [40, 0]), // what a running child waited for is in the postmaster's once it ends
      stat(200, 'node', 1, [400, 100], [0, 0]), // someone else
    ].map(parseStat);
    expect(serverTicks(processes, 'postgres')).toBe(60 + 1000 + 25 + 10);
  });

  it("takes the machine's busy time from /proc/stat, without idle and I/O wait", () => {
    const procStat = 'cpu  100 5 40 9000 300 2 3 7 0 0\ncpu0 50 2 20 4500 150 1 1 3 0 0\n';
    expect(busyTicks(procStat)).toBe(100 + 5 + 40 + 2 + 3 + 7);
  });

  it("takes Redis's user and system time from INFO cpu", () => {
    const info = '# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\nused_cpu_sys_children:9.0\r\n';
    expect(redisCpuMs(info)).toBe(3_750);
  });
});
