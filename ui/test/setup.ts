// What the app does at start-up before drawing: adopt the core's segment and adapter lists. The
// tests read them from fixtures/rules.json, the `rules` operation's output, which a Rust test
// (tests/it/api.rs) keeps equal to what the core says.
import RULES from '../../fixtures/rules.json';
import type { Rules } from '../src/api/types';
import { adoptCoreLayout } from '../src/lib/scene';

// JSON imports are typed loosely (`family` as a string); the file is the core's output.
adoptCoreLayout(RULES as Rules);

// Browsers queue `selectionchange` as a task; happy-dom dispatches it inside Selection.collapse,
// so an editor writing its selection during an update (a diagnostic's link revealing a line)
// would have CodeMirror's DOM observer re-enter that update. Queue it as a browser does.
const dispatchNow = document.dispatchEvent.bind(document);
document.dispatchEvent = (event: Event): boolean => {
  if (event.type !== 'selectionchange') return dispatchNow(event);
  setTimeout(() => dispatchNow(event), 0);
  return true;
};
