import chalk from 'chalk';
import { Box, renderToString, Text } from 'ink';
import { type Cell, columnWidths, labelWidth, type TableSpec } from './table-model.js';

function CellText({ value, color, bold }: { value: Cell; color: boolean; bold?: boolean }) {
  return (
    <Text wrap="truncate-end" bold={color && (bold ?? false)} {...(color && value.tone ? { color: value.tone } : {})}>
      {value.text}
    </Text>
  );
}

/**
 * Column widths (with a 2-space gutter) that fit `total` columns: the widest column gives way first, so one long
 * description is cut rather than a short column vanishing.
 */
export function fitWidths(natural: number[], total: number, min = 6): number[] {
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) - total;
  while (excess > 0) {
    let widest = 0;
    widths.forEach((w, i) => {
      if (w > (widths[widest] ?? 0)) widest = i;
    });
    const current = widths[widest] ?? 0;
    if (current <= min) break;
    const second = Math.max(min, ...widths.filter((_, i) => i !== widest));
    const cut = Math.min(excess, Math.max(1, current - second));
    widths[widest] = current - cut;
    excess -= cut;
  }
  return widths;
}

export function TableView({ spec, color, columns = 1000 }: { spec: TableSpec; color: boolean; columns?: number }) {
  if (spec.kind === 'detail') {
    const width = labelWidth(spec) + 2;
    return (
      <Box flexDirection="column">
        {spec.title ? (
          <Box gap={2}>
            <Text bold={color}>{spec.title}</Text>
            {spec.note ? <Text {...(color ? { color: 'yellow' } : {})}>{spec.note}</Text> : null}
          </Box>
        ) : null}
        {spec.rows.map(([label, value]) => (
          <Box key={label}>
            <Box width={width} flexShrink={0}>
              <Text {...(color ? { color: 'gray' } : {})}>{label}</Text>
            </Box>
            <CellText value={value} color={color} />
          </Box>
        ))}
      </Box>
    );
  }
  const widths = fitWidths(
    columnWidths(spec).map((w) => w + 2),
    columns,
  );
  return (
    <Box flexDirection="column">
      <Box>
        {spec.columns.map((c, i) => (
          <Box key={c} width={widths[i]} flexShrink={0} paddingRight={2}>
            <CellText value={{ text: c.toUpperCase() }} color={color} bold />
          </Box>
        ))}
      </Box>
      {spec.rows.map((row, r) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are static and never reordered
        <Box key={r}>
          {row.map((value, i) => (
            <Box key={spec.columns[i]} width={widths[i]} flexShrink={0} paddingRight={2}>
              <CellText value={value} color={color} />
            </Box>
          ))}
        </Box>
      ))}
    </Box>
  );
}

/** Renders a one-shot table for a terminal of the given width. */
export function renderTable(spec: TableSpec, color: boolean, columns: number): string {
  applyColorLevel(color);
  return `${renderToString(<TableView spec={spec} color={color} columns={columns} />, { columns })}\n`;
}

/** Ink colours through chalk, which guesses from the process; our decision (flags, NO_COLOR, FORCE_COLOR) wins. */
export function applyColorLevel(color: boolean): void {
  chalk.level = color ? (Math.max(chalk.level, 1) as typeof chalk.level) : 0;
}
