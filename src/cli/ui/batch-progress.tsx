import { Box, render, Text } from 'ink';
import type { BatchProgress } from '../commands/batch-follow.js';
import { formatDuration, formatRate } from '../format.js';

const BAR_WIDTH = 30;

/** The live view of `igw batch … --wait` on a terminal: bar, done/total, outcomes, rate, ETA. */
export function BatchProgressView({ progress, color }: { progress: BatchProgress; color: boolean }) {
  const { batch, done, total } = progress;
  const ratio = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(ratio * BAR_WIDTH);
  const statusColor = batch.status === 'succeeded' ? 'green' : batch.status === 'failed' || batch.status === 'expired' || batch.status === 'cancelled' ? 'red' : 'cyan';
  const colorProps = (name: string) => (color ? { color: name } : {});
  return (
    <Box flexDirection="column">
      <Box gap={1}>
        <Text bold>{batch.id}</Text>
        <Text {...colorProps(statusColor)}>{batch.status}</Text>
      </Box>
      <Box gap={1}>
        <Text>
          <Text {...colorProps('green')}>{'█'.repeat(filled)}</Text>
          <Text dimColor>{'░'.repeat(BAR_WIDTH - filled)}</Text>
        </Text>
        <Text>
          {done}/{total}
        </Text>
        <Text dimColor>{Math.floor(ratio * 100)}%</Text>
      </Box>
      <Box gap={2}>
        <Text {...colorProps('green')}>succeeded {batch.request_counts.succeeded}</Text>
        <Text {...colorProps(batch.request_counts.errored > 0 ? 'red' : 'gray')}>errored {batch.request_counts.errored}</Text>
        <Text>{formatRate(progress.rowsPerSecond, 'rows')}</Text>
        <Text dimColor>ETA {progress.etaSeconds === null ? '-' : formatDuration(progress.etaSeconds)}</Text>
      </Box>
    </Box>
  );
}

export interface ProgressRenderer {
  update(progress: BatchProgress): void;
  done(): void;
}

/** Draws the view on `stream` (stderr: stdout stays for results) and redraws on each update. */
export function renderBatchProgress(stream: NodeJS.WriteStream, color: boolean): ProgressRenderer {
  let instance: ReturnType<typeof render> | null = null;
  return {
    update(progress) {
      const element = <BatchProgressView progress={progress} color={color} />;
      if (instance === null) instance = render(element, { stdout: stream, exitOnCtrlC: false, patchConsole: false });
      else instance.rerender(element);
    },
    done() {
      instance?.unmount();
      instance = null;
    },
  };
}
