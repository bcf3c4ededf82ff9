import { Box, Text, useInput, useStdin } from 'ink';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Activity, ActivitySnapshot, RankedTally, TaskSnapshot } from '../../app/activity.js';
import { formatAmount, formatCo2, formatCount, formatKwh, formatMs } from '../../usage/format.js';
import { bar, sparkline } from '../../usage/sparkline.js';
import { formatLogLine, type LogLine } from './log-tail.js';

export interface DashboardInfo {
  url: string;
  dataDir: string;
  config: string;
}

export interface DashboardViewProps {
  info: DashboardInfo;
  snapshot: ActivitySnapshot;
  log: readonly LogLine[];
  /** false under NO_COLOR: layout and weight only, no colours. */
  color: boolean;
  /** Set once q / Ctrl-C was pressed: the footer says the gateway is stopping. */
  stopping?: boolean;
}

function uptime(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}

function Section({ title, children, width }: { title: string; children: ReactNode; width?: number }) {
  return (
    <Box flexDirection="column" marginRight={2} {...(width === undefined ? {} : { width })}>
      <Text bold underline>
        {title}
      </Text>
      {children}
    </Box>
  );
}

function Row({ label, value, width = 12 }: { label: string; value: ReactNode; width?: number }) {
  return (
    <Box>
      <Box width={width}>
        <Text dimColor>{label}</Text>
      </Box>
      <Text>{value}</Text>
    </Box>
  );
}

function Ranking({ rows, empty }: { rows: readonly RankedTally[]; empty: string }) {
  if (rows.length === 0) return <Text dimColor>{empty}</Text>;
  const width = Math.min(28, Math.max(...rows.map((row) => row.name.length)) + 2);
  return (
    <>
      {rows.map((row) => (
        <Box key={row.name}>
          <Box width={width}>
            <Text wrap="truncate-middle">{row.name}</Text>
          </Box>
          <Text>
            {formatCount(row.requests).padStart(7)} req  €{formatAmount(row.eur)}
          </Text>
        </Box>
      ))}
    </>
  );
}

function taskLine(task: TaskSnapshot, now: number): string {
  const counts = task.total === null ? `${formatCount(task.done)} done` : `${formatCount(task.done)}/${formatCount(task.total)}`;
  const failed = task.failed > 0 ? `, ${formatCount(task.failed)} failed` : '';
  const progress = task.total !== null && task.total > 0 ? `${bar(task.done, task.total, 20).padEnd(20, '·')} ` : '';
  const elapsed = uptime((task.ended_at ?? now) - task.started_at);
  return `${task.kind.padEnd(9)} ${task.label} ${progress}${counts}${failed} · ${task.status} · ${elapsed}${task.detail === null ? '' : ` · ${task.detail}`}`;
}

/** The `igw serve` dashboard as a pure function of one activity snapshot (rendered ~1/s). */
export function DashboardView({ info, snapshot, log, color, stopping = false }: DashboardViewProps) {
  const tint = (name: string) => (color ? name : undefined);
  const errorTotal = snapshot.errors.reduce((sum, error) => sum + error.count, 0);
  const running = snapshot.tasks.filter((task) => task.status === 'running').length;
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold color={tint('cyan')}>
          igw
        </Text>
        <Text> listening on </Text>
        <Text bold>{info.url}</Text>
        <Text dimColor>
          {'  '}up {uptime(snapshot.now - snapshot.started_at)} · data {info.dataDir} · config {info.config}
        </Text>
      </Box>
      <Box marginTop={1}>
        <Section title="Traffic" width={34}>
          <Row label="requests/s" value={snapshot.requests_per_second.toFixed(1)} />
          <Row label="last 20 s" value={<Text wrap="truncate">{sparkline(snapshot.per_second.slice(-21, -1)).replaceAll(' ', '·')}</Text>} />
          <Row label="p50" value={`${formatMs(snapshot.latency_p50_ms)} ms`} />
          <Row label="p99" value={`${formatMs(snapshot.latency_p99_ms)} ms`} />
          <Row label="in flight" value={String(snapshot.in_flight)} />
          <Row label="since start" value={`${formatCount(snapshot.total_requests)} requests`} />
        </Section>
        <Section title={`Today (${snapshot.today.day} UTC)`} width={36}>
          <Row label="requests" value={`${formatCount(snapshot.today.requests)} (${formatCount(snapshot.today.errors)} errors)`} />
          <Row label="spend" value={`€${formatAmount(snapshot.today.eur)}`} />
          <Row label="energy" value={`${formatAmount(snapshot.today.energy)} units`} />
          <Row label="electricity" value={formatKwh(snapshot.today.energy_kwh)} />
          <Row label="CO2" value={formatCo2(snapshot.today.carbon_g_co2)} />
        </Section>
        <Section title="Errors since start">
          {snapshot.errors.length === 0 ? (
            <Text color={tint('green')}>none</Text>
          ) : (
            [{ code: 'total', count: errorTotal }, ...snapshot.errors.slice(0, 5)].map((error) => (
              <Text key={error.code} color={tint('red')}>
                {error.code.padEnd(16)} {formatCount(error.count)}
              </Text>
            ))
          )}
        </Section>
      </Box>
      <Box marginTop={1}>
        <Section title="Top models today" width={52}>
          <Ranking rows={snapshot.top_models} empty="no requests yet" />
        </Section>
        <Section title="Top keys today">
          <Ranking rows={snapshot.top_keys} empty="no requests yet" />
        </Section>
      </Box>
      <Box marginTop={1}>
        <Section title={`Batches and ingestions (${running} running)`}>
          {snapshot.tasks.length === 0 ? (
            <Text dimColor>nothing running</Text>
          ) : (
            snapshot.tasks.map((task) => (
              <Text key={`${task.kind}:${task.id}`} color={tint(task.status === 'failed' ? 'red' : task.status === 'running' ? 'yellow' : 'green')} wrap="truncate-end">
                {taskLine(task, snapshot.now)}
              </Text>
            ))
          )}
        </Section>
      </Box>
      {log.length > 0 && (
        <Box marginTop={1}>
          <Section title="Log">
            {log.map((line, index) => (
              <Text key={index} wrap="truncate-end" {...(line.level === 'info' ? { dimColor: true } : { color: tint(line.level === 'error' ? 'red' : 'yellow') })}>
                {formatLogLine(line)}
              </Text>
            ))}
          </Section>
        </Box>
      )}
      <Box marginTop={1}>
        <Text dimColor>{stopping ? 'stopping: finishing in-flight requests…' : 'q or Ctrl-C stops the gateway'}</Text>
      </Box>
    </Box>
  );
}

export interface DashboardProps {
  info: DashboardInfo;
  activity: Activity;
  recentLog: (count: number) => LogLine[];
  color: boolean;
  /** Called once on q / Ctrl-C: the same graceful stop as SIGINT. */
  onQuit: () => void;
  refreshMs?: number;
}

/** Live wrapper: re-reads the in-memory snapshot on a timer (no disk reads per frame). */
export function Dashboard({ info, activity, recentLog, color, onQuit, refreshMs = 1000 }: DashboardProps) {
  const [snapshot, setSnapshot] = useState(() => activity.snapshot());
  const [log, setLog] = useState(() => recentLog(5));
  const [stopping, setStopping] = useState(false);
  // A ref, not the state: two keys in one tick must not call onQuit twice.
  const quitting = useRef(false);
  const { isRawModeSupported } = useStdin();
  useEffect(() => {
    const timer = setInterval(() => {
      setSnapshot(activity.snapshot());
      setLog(recentLog(5));
    }, refreshMs);
    return () => clearInterval(timer);
  }, [activity, recentLog, refreshMs]);
  useInput(
    (input, key) => {
      if (quitting.current) return;
      if (input === 'q' || input === 'Q' || (key.ctrl && input === 'c')) {
        quitting.current = true;
        setStopping(true);
        onQuit();
      }
    },
    // Without a terminal on stdin (igw serve < /dev/null) there are no keys: signals still stop it.
    { isActive: isRawModeSupported === true },
  );
  return <DashboardView info={info} snapshot={snapshot} log={log} color={color} stopping={stopping} />;
}
