import { useEffect } from 'react';
import { Loading, ReadError } from '../../components/Feedback.tsx';
import { SettingsNav } from '../../components/SettingsNav.tsx';
import { formatDuration } from '../../lib/format.ts';
import { useCanWrite } from '../../lib/session.ts';
import { useWatchdog } from './queries.ts';
import { TargetCard } from './TargetCard.tsx';

/**
 * The watchdog: requests mon sends so that something outside notices when it is down. Both targets
 * with their state; admins set, replace and remove those mon.toml does not set, viewers only read.
 */
export default function Watchdog() {
  const read = useWatchdog();
  const canWrite = useCanWrite();
  useEffect(() => {
    document.title = 'Watchdog · mon';
  }, []);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Watchdog</h1>
          <p className="sub">
            mon watches everything except itself. So that you hear when mon is down, it sends a request
            {read.data ? ` every ${formatDuration(read.data.everyMs)}` : ' periodically'} to an edge and to a
            heartbeat URL of another monitoring service, which alert you when the requests stop.
          </p>
        </div>
      </div>
      <SettingsNav />
      {read.isPending ? (
        <Loading />
      ) : read.isError ? (
        <ReadError error={read.error} />
      ) : (
        <>
          <TargetCard kind="edge" target={read.data.edge} canWrite={canWrite} />
          <TargetCard kind="heartbeat" target={read.data.heartbeat} canWrite={canWrite} />
        </>
      )}
    </>
  );
}
