import { createBrowserRouter, Navigate } from 'react-router';
import type { ReactNode } from 'react';
import { ApiKeys } from '../pages/admin/ApiKeys';
import { BulkActions } from '../pages/BulkActions';
import { Deliveries } from '../pages/admin/Deliveries';
import { JobDetail } from '../pages/admin/JobDetail';
import { Jobs } from '../pages/admin/Jobs';
import { QueueSettings } from '../pages/admin/QueueSettings';
import { Rules } from '../pages/admin/Rules';
import { SsoSettings } from '../pages/admin/Sso';
import { Users } from '../pages/admin/Users';
import { Investigate, InvestigateItem, InvestigateUser } from '../pages/Investigate';
import { Invite } from '../pages/Invite';
import { ItemStatements } from '../pages/ItemStatements';
import { Transparency } from '../pages/Transparency';
import { InsightsRoute } from '../pages/InsightsRoute';
import { Queues } from '../pages/Queues';
import { Review } from '../pages/Review';
import { Layout, NAV } from './Layout';
import { RequirePermission } from './RequirePermission';
import { type Permission, useSession } from './session';

/** The first page this user may open. */
function Home() {
  const session = useSession();
  const first = NAV.find((entry) => session.can(entry.permission));
  return first ? <Navigate to={first.to} replace /> : <p>Your roles give you no console page yet. Ask an administrator.</p>;
}

/** A route whose page needs a permission: the same one its NAV entry names. */
const guarded = (path: string, permission: Permission, page: ReactNode) => ({
  path,
  element: <RequirePermission permission={permission}>{page}</RequirePermission>,
});

function NotFound() {
  return <p role="alert">There is no such page in the console.</p>;
}

export const router = createBrowserRouter(
  [
    { path: '/invite', element: <Invite /> },
    {
      path: '/',
      element: <Layout />,
      children: [
        { index: true, element: <Home /> },
        guarded('queues', 'VIEW_MRT', <Queues />),
        guarded('review/:queueId', 'DECIDE_MRT', <Review />),
        guarded('jobs', 'MANAGE_MRT_JOBS', <Jobs />),
        guarded('jobs/:jobId', 'MANAGE_MRT_JOBS', <JobDetail />),
        guarded('queue-settings', 'EDIT_MRT_QUEUES', <QueueSettings />),
        guarded('rules', 'VIEW_RULES', <Rules />),
        guarded('users', 'MANAGE_USERS', <Users />),
        guarded('api-keys', 'MANAGE_API_KEYS', <ApiKeys />),
        guarded('sso', 'MANAGE_SSO', <SsoSettings />),
        guarded('deliveries', 'MANAGE_CALLBACKS', <Deliveries />),
        guarded('transparency', 'VIEW_INSIGHTS', <Transparency />),
        guarded('insights', 'VIEW_INSIGHTS', <InsightsRoute />),
        guarded('transparency/items/:typeId/:itemId', 'VIEW_MRT', <ItemStatements />),
        guarded('bulk-actions/:bulkActionId?', 'BULK_ACTIONS', <BulkActions />),
        guarded('investigate', 'INVESTIGATE', <Investigate />),
        guarded('investigate/items/:typeId/:id', 'INVESTIGATE', <InvestigateItem />),
        guarded('investigate/users/:typeId/:id', 'INVESTIGATE', <InvestigateUser />),
        { path: '*', element: <NotFound /> },
      ],
    },
  ],
  { basename: '/console' },
);
