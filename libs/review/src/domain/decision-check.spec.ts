import { describe, expect, it } from 'vitest';
import type { ActionDefinition } from '#warden/catalog/contracts';
import { actionDefinition, policyDefinition } from '../../../../test/support/catalog-definitions.js';
import { checkDecision, type DecisionCatalog, type DecisionRequest } from './decision-check.js';

const action = (over: Partial<ActionDefinition>) => actionDefinition('remove', { name: 'Remove', ...over });
const policy = (id: string) => policyDefinition(id, { name: id.toUpperCase() });
const catalog = (over: Partial<DecisionCatalog> = {}): DecisionCatalog => ({
  actions: [
    action({
      parameters: [
        { name: 'durationDays', type: 'NUMBER', required: false },
        { name: 'notify', type: 'BOOLEAN', required: true },
        { name: 'a/b', type: 'URL', required: false },
      ],
    }),
    action({ id: 'ban-user', itemTypeIds: ['user'] }),
    action({ id: 'label', itemTypeIds: [] }),
    action({ id: 'enqueue-to-mrt', kind: 'ENQUEUE_TO_MRT', itemTypeIds: [] }),
  ],
  policies: [policy('spam'), policy('violence')],
  itemTypes: [],
  settings: undefined,
  visibleQueueIds: ['default', 'spam'],
  job: { queueId: 'default', itemTypeId: 'post' },
  ...over,
});
const pointers = (request: DecisionRequest, over: Partial<DecisionCatalog> = {}) => {
  const checked = checkDecision(request, catalog(over));
  return checked.ok ? [] : checked.problems.map((p) => p.pointer);
};

describe('checkDecision', () => {
  it('accepts a CUSTOM_ACTION with its actions, policies and parameters, and names the policies as the catalog does', () => {
    const checked = checkDecision(
      { type: 'CUSTOM_ACTION', actionIds: ['remove', 'label'], policyIds: ['spam'], parameters: { durationDays: 7, notify: true } },
      catalog(),
    );
    expect(checked).toMatchObject({ ok: true, type: 'CUSTOM_ACTION', policies: [{ id: 'spam', name: 'SPAM', penalty: 'LOW' }] });
    expect(checked.ok && checked.actions.map((a) => a.id)).toEqual(['remove', 'label']);
  });

  it('refuses the appeal types, AUTOMATIC_CLOSE and unknown types at /type', () => {
    expect(pointers({ type: 'ACCEPT_APPEAL' })).toEqual(['/type']);
    expect(pointers({ type: 'REJECT_APPEAL' })).toEqual(['/type']);
    expect(pointers({ type: 'AUTOMATIC_CLOSE' })).toEqual(['/type']);
    expect(pointers({ type: 'DELETE' })).toEqual(['/type']);
  });

  it('appeal jobs take ACCEPT_APPEAL and REJECT_APPEAL and nothing else; other jobs never take them', () => {
    const onAppeal = { job: { queueId: 'appeals', itemTypeId: 'post', appeal: true } };
    expect(checkDecision({ type: 'ACCEPT_APPEAL' }, catalog(onAppeal))).toMatchObject({ ok: true, type: 'ACCEPT_APPEAL', actions: [] });
    expect(checkDecision({ type: 'REJECT_APPEAL', policyIds: ['spam'] }, catalog(onAppeal))).toMatchObject({ ok: true, type: 'REJECT_APPEAL' });
    for (const type of ['IGNORE', 'CUSTOM_ACTION', 'SUBMIT_CHILD_SAFETY_REPORT', 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE']) {
      expect(pointers({ type, actionIds: ['remove'] }, onAppeal)).toEqual(['/type']);
    }
    expect(pointers({ type: 'ACCEPT_APPEAL', actionIds: ['remove'] }, onAppeal)).toEqual(['/actionIds']);
  });

  it('CUSTOM_ACTION: live customer-defined actions of the item type, policies of the tree, once each', () => {
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: [] })).toEqual(['/actionIds']);
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: ['label', 'ban-user', 'enqueue-to-mrt', 'nope', 'label'] })).toEqual([
      '/actionIds/1',
      '/actionIds/2',
      '/actionIds/3',
      '/actionIds/4',
    ]);
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: ['label'], policyIds: ['spam', 'nope', 'spam'] })).toEqual(['/policyIds/1', '/policyIds/2']);
  });

  it("parameters: each chosen action's types and required ones; unknown names refused; pointers escaped", () => {
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: ['remove'], parameters: { durationDays: 'seven' } })).toEqual([
      '/parameters/durationDays',
      '/parameters/notify',
    ]);
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: ['remove'], parameters: { notify: 'yes', 'a/b': 'not a url', extra: 1 } })).toEqual([
      '/parameters/extra',
      '/parameters/notify',
      '/parameters/a~1b',
    ]);
    // Another action's parameter is unknown when that action is not chosen.
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: ['label'], parameters: { durationDays: 3 } })).toEqual(['/parameters/durationDays']);
  });

  it('actions, parameters and a target queue only with their decision types', () => {
    expect(pointers({ type: 'IGNORE', actionIds: ['label'], parameters: { x: 1 }, targetQueueId: 'spam' })).toEqual([
      '/actionIds',
      '/parameters',
      '/targetQueueId',
    ]);
  });

  it("TRANSFORM: a visible queue other than the job's", () => {
    expect(pointers({ type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', targetQueueId: 'spam' })).toEqual([]);
    expect(pointers({ type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' })).toEqual(['/targetQueueId']);
    expect(pointers({ type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', targetQueueId: 'default' })).toEqual(['/targetQueueId']);
    expect(pointers({ type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', targetQueueId: 'child-safety' })).toEqual(['/targetQueueId']);
  });

  it("the organization's settings: a reason for every decision, a policy for CUSTOM_ACTION", () => {
    const settings = {
      requireDecisionReason: true,
      requirePolicyForDecisions: true,
      requireSecondFactor: false,
      auditorPersonalData: false,
      wellness: { blur: 2 as const, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' as const },
    };
    expect(pointers({ type: 'IGNORE', reason: '  ' }, { settings })).toEqual(['/reason']);
    expect(pointers({ type: 'IGNORE', reason: 'duplicate' }, { settings })).toEqual([]);
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: ['label'], reason: 'spam' }, { settings })).toEqual(['/policyIds']);
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: ['label'], policyIds: ['spam'], reason: 'spam' }, { settings })).toEqual([]);
    expect(pointers({ type: 'CUSTOM_ACTION', actionIds: ['label'] })).toEqual([]);
  });
});
