// The parser ships no types: what its README documents (a prom2json-like array of families).
declare module 'parse-prometheus-text-format' {
  namespace parsePrometheusTextFormat {
    interface Sample {
      labels?: Record<string, string>;
      /** Counters, gauges, untyped. */
      value?: string;
      /** Histograms: cumulative count by `le`, then `_count` and `_sum`. */
      buckets?: Record<string, string>;
      count?: string;
      sum?: string;
    }
    interface Family {
      name: string;
      help: string;
      type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
      metrics: Sample[];
    }
  }
  /** Throws on a line it cannot parse. */
  function parsePrometheusTextFormat(text: string): parsePrometheusTextFormat.Family[];
  export = parsePrometheusTextFormat;
}
