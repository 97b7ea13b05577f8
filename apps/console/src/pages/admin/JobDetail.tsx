import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, ok } from '../../api/client';
import { useSession } from '../../app/session';
import { useLoad } from '../../app/use-load';
import { DEFAULT_WELLNESS, useWellness, type Wellness } from '../../app/wellness';
import { ErrorNote } from '../../components/ErrorNote';
import { JobActions, nameOf, useUsersIfAllowed } from '../../components/JobActions';
import { jobMediaUrls, JobView, useRevealedMedia } from '../../components/JobView';
import { WellnessControls } from '../../components/WellnessControls';
import { Notice } from '../../components/PageHead';

/**
 * One job as a manager sees it, without claiming it: the same view a moderator has, media blurred
 * as the organization and this user chose, and the manager's moves on it.
 */
export function JobDetail() {
  const { jobId = '' } = useParams();
  const session = useSession();
  const job = useLoad(() => ok(api.GET('/api/console/v1/jobs/{jobId}', { params: { path: { jobId } } })), [jobId]);
  const settings = useLoad(() => ok(api.GET('/api/console/v1/settings')), []);
  const users = useUsersIfAllowed(session.can('MANAGE_USERS'));
  const personal = useWellness(session.user?.id ?? '', settings.data ? (settings.data.wellness as Wellness) : DEFAULT_WELLNESS);
  const [notice, setNotice] = useState<string | null>(null);
  const { media } = useRevealedMedia(personal.wellness);
  const data = job.data;
  return (
    <>
      <div className="page-head">
        <h1>
          Job <span className="muted">{jobId}</span>
        </h1>
        <Link to="/jobs">Back to the jobs</Link>
      </div>
      <ErrorNote error={job.error ?? settings.error} />
      <Notice text={notice} />
      {data && settings.data && media && (
        <>
          <div className="review-bar">
            <span>
              State <strong>{data.state.toLowerCase()}</strong>
              {data.lock && (
                <>
                  {' '}
                  · held by {nameOf(data.lock.moderatorId, users.data)} until {new Date(data.lock.expiresAt).toLocaleTimeString()}
                </>
              )}
              {data.assignedTo && <> · assigned to {nameOf(data.assignedTo, users.data)}</>}
            </span>
            {/* Blur and greyscale only where there is media to blur. */}
            {jobMediaUrls(data).length > 0 && <WellnessControls {...personal} />}
            <JobActions
              jobId={data.jobId}
              state={data.state}
              users={users.data ?? null}
              onChanged={(message) => {
                setNotice(message);
                job.reload();
              }}
            />
          </div>
          <JobView job={data} media={media} />
          <p>
            <Link to={`/transparency/items/${encodeURIComponent(data.item.typeId)}/${encodeURIComponent(data.item.id)}`}>
              Statements of reasons of this item
            </Link>
          </p>
        </>
      )}
    </>
  );
}
