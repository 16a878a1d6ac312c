import { SettingsNav } from '../../components/SettingsNav.tsx';

/** Notification channels: list, add, edit, test. */
export default function Channels() {
  return (
    <>
      <div className="page-head">
        <h1>Channels</h1>
      </div>
      <SettingsNav />
    </>
  );
}
