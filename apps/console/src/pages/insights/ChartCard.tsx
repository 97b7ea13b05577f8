import { cloneElement, type ReactElement } from 'react';
import { type Cell, toCsv } from './csv';

function download(name: string, csv: string) {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * One chart with its data: the canvas is an image (role img) named by the title for assistive technology,
 * and the same figures follow as a table (behind a disclosure, which keyboards and screen readers
 * open) and as a CSV download (docs/console.md, "Insights").
 */
export function ChartCard(props: {
  id: string;
  title: string;
  note?: string;
  columns: readonly string[];
  rows: readonly (readonly Cell[])[];
  fileName: string;
  empty: boolean;
  /** The chart (react-chartjs-2 draws a canvas with role img): named here. */
  children: ReactElement<{ 'aria-label'?: string }>;
}) {
  const { id, title, note, columns, rows, fileName, empty, children } = props;
  return (
    <section className="card chart-card" aria-labelledby={`${id}-title`} data-chart={id}>
      <h2 id={`${id}-title`}>{title}</h2>
      {note && <p className="muted">{note}</p>}
      {empty ? (
        <p className="muted">No data in the period.</p>
      ) : (
        <div className="chart-canvas">{cloneElement(children, { 'aria-label': `${title}: chart. The same figures are in the data table below.` })}</div>
      )}
      <div className="chart-tools">
        <details>
          <summary>Data table</summary>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">{title}</caption>
              <thead>
                <tr>
                  {columns.map((c) => (
                    <th key={c} scope="col">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row, i) => (
                  <tr key={i}>
                    {row.map((cell, j) =>
                      j === 0 ? (
                        <th key={j} scope="row">
                          {cell ?? '—'}
                        </th>
                      ) : (
                        <td key={j}>{cell ?? '—'}</td>
                      ),
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
        <button type="button" onClick={() => download(fileName, toCsv(columns, rows))}>
          Download CSV<span className="sr-only"> of {title}</span>
        </button>
      </div>
    </section>
  );
}
