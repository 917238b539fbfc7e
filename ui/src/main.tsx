import { render } from 'preact';
import { errorText } from './api/api';
import { pickApi } from './api';
import { adoptCoreLayout } from './lib/scene';
import { installSelectGuard } from './lib/select-keys';
import { Session } from './lib/session';
import { App } from './app';
import './style.css';

// Every <select> of the app: no value change on an arrow key alone (lib/select-keys.ts).
installSelectGuard();

async function start() {
  const root = document.getElementById('app')!;
  try {
    const api = await pickApi();
    const session = new Session(api);
    (window as unknown as { __pi: Session }).__pi = session; // for the e2e test's timing probe
    // The segment and adapter lists come from the core, before anything is drawn.
    session.rules = await api.rules();
    adoptCoreLayout(session.rules);
    // The model picker's table, and the model the first render is priced for.
    await session.loadModels();
    render(<App session={session} />, root);
    const open = new URLSearchParams(location.search).get('open');
    if (!(open && (await session.open(open)))) await session.openDefault();
  } catch (e) {
    root.innerHTML = '';
    const p = document.createElement('pre');
    p.className = 'fatal';
    p.textContent = `Prompt Inspector cannot start: ${errorText(e)}`;
    root.append(p);
  }
}
void start();
