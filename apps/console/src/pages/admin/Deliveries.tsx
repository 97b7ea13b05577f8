import { useState } from 'react';
import { api, ok, type Schemas } from '../../api/client';
import { hostOf, when } from '../../app/format';
import { useAction, useLoad } from '../../app/use-load';
import { ErrorNote } from '../../components/ErrorNote';
import { Pager } from '../../components/Pager';
import { Notice, PageHead } from '../../components/PageHead';
import { TableHead } from '../../components/TableHead';

type Delivery = Schemas['DeliveryDto'];
type Status = Delivery['status'];

const LIMIT = 50;
const STATUSES: ReadonlyArray<{ value: Status; label: string }> = [
  { value: 'failed', label: 'Failed (retry scheduled)' },
  { value: 'dead', label: 'Dead-lettered' },
  { value: 'pending', label: 'Pending' },
  { value: 'delivered', label: 'Delivered' },
];
const STATUS_TAG: Record<Status, string> = { pending: 'tag', failed: 'tag warn', dead: 'tag danger', delivered: 'tag' };

function RedeliverButton({ delivery, onSent }: { delivery: Delivery; onSent(message: string): void }) {
  const action = useAction();
  async function redeliver() {
    const sent = await action.run(() =>
      ok(api.POST('/api/console/v1/callbacks/deliveries/{deliveryId}/redeliver', { params: { path: { deliveryId: delivery.deliveryId } } })),
    );
    if (sent) onSent(`Delivery ${sent.deliveryId} is sent again (attempt cycle ${sent.cycle}).`);
  }
  return (
    <>
      <button type="button" onClick={() => void redeliver()} disabled={action.busy} aria-label={`Redeliver ${delivery.deliveryId}`}>
        Redeliver
      </button>
      <ErrorNote error={action.error} />
    </>
  );
}

function DeliveryRow({ delivery, onSent }: { delivery: Delivery; onSent(message: string): void }) {
  return (
    <tr>
      <th scope="row">
        {delivery.kind === 'action' ? `Action ${delivery.actionId ?? ''}` : `Appeal ${delivery.appealId ?? ''}`}
        <div className="muted">
          {delivery.item.typeId} {delivery.item.id} · {delivery.trigger}
        </div>
        <div className="muted mono">{delivery.deliveryId}</div>
      </th>
      <td>{hostOf(delivery.destination)}</td>
      <td>
        <span className={STATUS_TAG[delivery.status]}>{delivery.status === 'dead' ? 'dead-lettered' : delivery.status}</span>
        <div className="muted">
          {delivery.status === 'failed' && delivery.nextAttemptAt
            ? `next try ${when(delivery.nextAttemptAt)}`
            : when(delivery.deliveredAt ?? delivery.deadLetteredAt ?? delivery.updatedAt)}
        </div>
      </td>
      <td>
        {delivery.attempts} in cycle {delivery.cycle}
        <div className="muted">{delivery.totalAttempts} in all</div>
      </td>
      <td className="last-error">
        {delivery.lastError ?? '—'}
        {delivery.lastStatus !== null && <div className="muted">HTTP {delivery.lastStatus}</div>}
      </td>
      <td>{when(delivery.requestedAt)}</td>
      <td>{delivery.status === 'dead' && <RedeliverButton delivery={delivery} onSent={onSent} />}</td>
    </tr>
  );
}

/** The organization's callbacks to its platform: which failed, why, and sending dead letters again. */
export function Deliveries() {
  const [status, setStatus] = useState<Status | ''>('');
  // The offsets of the pages before this one, so Previous goes back exactly.
  const [offsets, setOffsets] = useState<number[]>([0]);
  const [notice, setNotice] = useState<string | null>(null);
  const offset = offsets[offsets.length - 1] ?? 0;
  const deliveries = useLoad(
    () => ok(api.GET('/api/console/v1/callbacks/deliveries', { params: { query: { ...(status ? { status } : {}), limit: LIMIT, offset } } })),
    [status, offset],
  );
  const data = deliveries.data;
  return (
    <>
      <PageHead title="Callbacks" loaded={deliveries} />
      <form className="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Status | '');
              setOffsets([0]);
            }}
          >
            <option value="">All deliveries</option>
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorNote error={deliveries.error} />
      <Notice text={notice} />
      {data && (
        <>
          <div className="table-wrap">
            <table className="deliveries">
              <caption className="sr-only">Callback deliveries, newest first</caption>
              <TableHead columns={['Delivery', 'Target host', 'Status', 'Attempts', 'Last error', 'Requested']} hidden="Actions" />
              <tbody>
                {data.deliveries.map((d) => (
                  <DeliveryRow
                    key={d.deliveryId}
                    delivery={d}
                    onSent={(message) => {
                      setNotice(message);
                      deliveries.reload();
                    }}
                  />
                ))}
              </tbody>
            </table>
          </div>
          {data.deliveries.length === 0 && <p className="muted">No delivery matches.</p>}
          <Pager
            label="Delivery pages"
            status={data.total === 0 ? 'None' : `${data.offset + 1}–${data.offset + data.deliveries.length} of ${data.total}${data.totalExact ? '' : '+'}`}
            onPrevious={offsets.length > 1 ? () => setOffsets(offsets.slice(0, -1)) : null}
            onNext={data.nextOffset !== null ? () => setOffsets([...offsets, data.nextOffset as number]) : null}
          />
        </>
      )}
    </>
  );
}
