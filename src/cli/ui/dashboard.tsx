import { Box, Text, useInput, useStdin, useStdout } from 'ink';
import { useEffect, useRef, useState } from 'react';
import { isUpstreamFailure, type Activity, type ActivitySnapshot, type RankedTally, type RequestLine, type TaskSnapshot } from '../../app/activity.js';
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
  /** Terminal height: the frame never grows taller (default 24). */
  rows?: number;
}

function uptime(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}

/** `10:00:01` (UTC, like the request log). */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

/** One request: time, key name, model, status, latency, then the cost, or the error code when it failed. */
export function requestLineText(line: RequestLine): string {
  const latency = line.latency_ms >= 1000 ? `${(line.latency_ms / 1000).toFixed(1)} s` : `${formatMs(line.latency_ms)} ms`;
  const outcome = line.error_code ?? (line.status >= 400 ? `HTTP ${line.status}` : `€${formatAmount(line.eur)}`);
  return `${clock(line.time)} ${fit(line.key ?? '(no key)', 14)} ${fit(line.model ?? line.endpoint, 22)} ${String(line.status).padStart(3)} ${latency.padStart(8)}  ${outcome}`;
}

function taskLine(task: TaskSnapshot, now: number): string {
  const counts = task.total === null ? `${formatCount(task.done)} done` : `${formatCount(task.done)}/${formatCount(task.total)}`;
  const failed = task.failed > 0 ? `, ${formatCount(task.failed)} failed` : '';
  const progress = task.total !== null && task.total > 0 ? `${bar(task.done + task.failed, task.total, 12).padEnd(12, '·')} ` : '';
  const elapsed = uptime((task.ended_at ?? now) - task.started_at);
  return `${task.kind.padEnd(9)} ${task.label} ${progress}${counts}${failed} · ${task.status} · ${elapsed}${task.detail === null ? '' : ` · ${task.detail}`}`;
}

type FeedItem = { time: number; kind: 'request'; line: RequestLine } | { time: number; kind: 'log'; line: LogLine };

/** Requests and log lines in one feed, by time (a request and the log line it caused stay together). */
function feed(snapshot: ActivitySnapshot, log: readonly LogLine[], count: number): FeedItem[] {
  if (count <= 0) return [];
  const items: FeedItem[] = [...snapshot.recent.map((line) => ({ time: line.time, kind: 'request' as const, line })), ...log.map((line) => ({ time: line.time, kind: 'log' as const, line }))];
  // Same millisecond: the log line first (it is usually what the request caused or what preceded it).
  return items.sort((a, b) => a.time - b.time || (a.kind === b.kind ? 0 : a.kind === 'log' ? -1 : 1)).slice(-count);
}

function ranking(rows: readonly RankedTally[]): string {
  return rows.length === 0 ? 'none yet' : rows.map((row) => `${row.name} ${formatCount(row.requests)}`).join(' · ');
}

/** Lines the view always uses besides the feed and the task list (header, numbers, titles, footer). */
const FIXED_LINES = 11;
/** Tasks shown at most (running first, then the last finished). */
const MAX_TASK_LINES = 4;

/**
 * The `igw serve` dashboard as a pure function of one activity snapshot (rendered ~1/s). Every line
 * is cut to the terminal's width and the feed gets only the rows left, so the whole frame fits the
 * terminal (80×24 included) and the header never scrolls away.
 */
export function DashboardView({ info, snapshot, log, color, stopping = false, rows = 24 }: DashboardViewProps) {
  const tint = (name: string) => (color ? name : undefined);
  const errorTotal = snapshot.errors.reduce((sum, error) => sum + error.count, 0);
  const running = snapshot.tasks.filter((task) => task.status === 'running').length;
  const tasks = snapshot.tasks.slice(0, MAX_TASK_LINES);
  const taskLines = Math.max(1, tasks.length);
  // One row stays free: a frame as tall as the terminal scrolls by one line when it is redrawn.
  const feedLines = Math.max(0, rows - 1 - FIXED_LINES - taskLines);
  const items = feed(snapshot, log, feedLines);
  const today = snapshot.today;
  const line = (text: string, props: Record<string, unknown> = {}) => (
    <Text wrap="truncate-end" {...props}>
      {text}
    </Text>
  );
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color={tint('cyan')}>
          igw
        </Text>
        {' '}
        <Text bold>{info.url}</Text>
        <Text dimColor>
          {' '}· up {uptime(snapshot.now - snapshot.started_at)} · config {info.config} · data {info.dataDir}
        </Text>
      </Text>
      {line(
        `now       ${snapshot.requests_per_second.toFixed(1)} req/s ${sparkline(snapshot.per_second.slice(-21, -1)).replaceAll(' ', '·')} · p50 ${formatMs(snapshot.latency_p50_ms)} ms · p99 ${formatMs(snapshot.latency_p99_ms)} ms · ${snapshot.in_flight} in flight · ${formatCount(snapshot.total_requests)} since start`,
      )}
      {line(
        `today     ${formatCount(today.requests)} requests (${formatCount(today.errors)} errors) · €${formatAmount(today.eur)} · ${formatAmount(today.energy)} units · ${formatKwh(today.energy_kwh)} · ${formatCo2(today.carbon_g_co2)} CO2`,
      )}
      {snapshot.errors.length === 0
        ? line('errors    none since start', { color: tint('green') })
        : line(`errors    ${formatCount(errorTotal)}: ${snapshot.errors.slice(0, 6).map((error) => `${error.code} ${formatCount(error.count)}`).join(' · ')}`, { color: tint('red') })}
      {line(`models    ${ranking(snapshot.top_models)}`)}
      {line(`keys      ${ranking(snapshot.top_keys)}`)}
      <Text> </Text>
      {line(`Batches and ingestions (${running} running)`, { bold: true })}
      {tasks.length === 0
        ? line('nothing running', { dimColor: true })
        : tasks.map((task) => (
            <Text key={`${task.kind}:${task.id}`} wrap="truncate-end" color={tint(task.status === 'failed' ? 'red' : task.status === 'running' ? 'yellow' : 'green')}>
              {taskLine(task, snapshot.now)}
            </Text>
          ))}
      <Text> </Text>
      {line('Requests and log (time UTC, key, model, status, latency, cost or error)', { bold: true })}
      {items.length === 0 && feedLines > 0
        ? line('no requests yet', { dimColor: true })
        : items.map((item, index) =>
            item.kind === 'request' ? (
              <Text key={index} wrap="truncate-end" {...(item.line.status >= 400 ? { color: tint(isUpstreamFailure(item.line.error_code) || item.line.status >= 500 ? 'red' : 'yellow') } : {})}>
                {requestLineText(item.line)}
              </Text>
            ) : (
              <Text key={index} wrap="truncate-end" {...(item.line.level === 'info' ? { dimColor: true } : { color: tint(item.line.level === 'error' ? 'red' : 'yellow') })}>
                {formatLogLine(item.line)}
              </Text>
            ),
          )}
      <Text dimColor wrap="truncate-end">
        {stopping ? 'stopping: finishing in-flight requests…' : 'q or Ctrl-C stops the gateway'}
      </Text>
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

/** Log lines handed to the feed (it shows as many of the newest as the terminal has rows for). */
const LOG_KEPT = 40;

/** Live wrapper: re-reads the in-memory snapshot on a timer (no disk reads per frame). */
export function Dashboard({ info, activity, recentLog, color, onQuit, refreshMs = 1000 }: DashboardProps) {
  const [snapshot, setSnapshot] = useState(() => activity.snapshot());
  const [log, setLog] = useState(() => recentLog(LOG_KEPT));
  const { stdout } = useStdout();
  const [rows, setRows] = useState(() => stdout.rows ?? 24);
  useEffect(() => {
    const resized = () => setRows(stdout.rows ?? 24);
    stdout.on('resize', resized);
    return () => {
      stdout.off('resize', resized);
    };
  }, [stdout]);
  const [stopping, setStopping] = useState(false);
  // A ref, not the state: two keys in one tick must not call onQuit twice.
  const quitting = useRef(false);
  const { isRawModeSupported } = useStdin();
  useEffect(() => {
    const timer = setInterval(() => {
      setSnapshot(activity.snapshot());
      setLog(recentLog(LOG_KEPT));
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
  return <DashboardView info={info} snapshot={snapshot} log={log} color={color} stopping={stopping} rows={rows} />;
}
