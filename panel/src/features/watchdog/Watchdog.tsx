import { SettingsNav } from '../../components/SettingsNav.tsx';

/** The watchdog: requests mon sends so that something outside notices when it is down. */
export default function Watchdog() {
  return (
    <>
      <div className="page-head">
        <h1>Watchdog</h1>
      </div>
      <SettingsNav />
    </>
  );
}
