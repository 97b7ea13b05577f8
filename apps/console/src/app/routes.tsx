import { createBrowserRouter, Navigate } from 'react-router';
import { Invite } from '../pages/Invite';
import { Queues } from '../pages/Queues';
import { Review } from '../pages/Review';
import { Layout, NAV } from './Layout';
import { useSession } from './session';

/** The first page this user may open. */
function Home() {
  const session = useSession();
  const first = NAV.find((entry) => session.can(entry.permission));
  return first ? <Navigate to={first.to} replace /> : <p>Your roles give you no console page yet. Ask an administrator.</p>;
}

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
        { path: 'queues', element: <Queues /> },
        { path: 'review/:queueId', element: <Review /> },
        { path: '*', element: <NotFound /> },
      ],
    },
  ],
  { basename: '/console' },
);
