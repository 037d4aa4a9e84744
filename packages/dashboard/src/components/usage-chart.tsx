import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Outputs } from '../lib/trpc.ts';

type Daily = Outputs['overview']['get']['daily'];

// lines of equal value lie on one another: each has its own dash and width, and its points are hollow rings of
// decreasing size, so coinciding points show as concentric rings in every colour
const SERIES = [
  { key: 'onchainHuman', label: 'On-chain, human', color: '--c1', dash: [], marker: 'solid', width: 4, point: 11 },
  { key: 'onchainAi', label: 'On-chain, AI', color: '--c2', dash: [10, 6], marker: 'dashed', width: 3, point: 8 },
  {
    key: 'offchainHuman',
    label: 'Off-chain, human',
    color: '--c3',
    dash: [3, 4],
    marker: 'dotted',
    width: 2.5,
    point: 5,
  },
  {
    key: 'offchainAi',
    label: 'Off-chain, AI',
    color: '--c4',
    dash: [12, 4, 2, 4],
    marker: 'double',
    width: 2,
    point: 3,
  },
] as const;

const HEIGHT = 260;

/**
 * A palette colour as the canvas takes it. The stylesheet writes each as `light-dark(…)`, which a custom property
 * keeps unresolved: a probe's `color` resolves it for the scheme in force.
 */
function cssVar(name: string): string {
  const probe = document.createElement('span');
  probe.style.color = `var(${name})`;
  document.body.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color || '#888';
}

function build(daily: Daily, box: HTMLElement): uPlot {
  const xs = daily.map((row) => Date.parse(`${row.day}T00:00:00Z`) / 1000);
  const data: uPlot.AlignedData = [xs, ...SERIES.map((s) => daily.map((row) => row[s.key]))];
  const fg = cssVar('--muted');
  const grid = cssVar('--line');
  const axis: uPlot.Axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const options: uPlot.Options = {
    width: Math.max(280, box.clientWidth),
    height: HEIGHT,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, max)] } },
    axes: [axis, { ...axis, size: 50 }],
    // the legend's swatches repeat each line's dash
    legend: { live: false, markers: { width: 3, dash: (_u, i) => SERIES[i - 1]?.marker ?? 'solid' } },
    series: [
      { label: 'Day' },
      ...SERIES.map((s) => ({
        label: s.label,
        stroke: cssVar(s.color),
        width: s.width,
        dash: [...s.dash],
        points: { show: true, size: s.point, width: 2, fill: cssVar('--bg') },
      })),
    ],
  };
  return new uPlot(options, data, box);
}

/** The 30 days of attestations as lines (drawn for sighted readers; the table beside it carries the figures). */
export default function UsageChart({ daily }: { daily: Daily }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let chart = build(daily, element);
    // colours come from the theme: redraw when it changes (toggle or the system's scheme)
    const redraw = () => {
      chart.destroy();
      chart = build(daily, element);
    };
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', redraw);
    const themeWatch = new MutationObserver(redraw);
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(280, element.clientWidth), height: HEIGHT }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      themeWatch.disconnect();
      scheme.removeEventListener('change', redraw);
      chart.destroy();
    };
  }, [daily]);

  return <div ref={box} className="chart-box" aria-hidden="true" />;
}
