import { SettingsNav } from '../../components/SettingsNav.tsx';

/** Silences and maintenance windows. */
export default function Windows() {
  return (
    <>
      <div className="page-head">
        <h1>Silences and maintenance</h1>
      </div>
      <SettingsNav />
    </>
  );
}
