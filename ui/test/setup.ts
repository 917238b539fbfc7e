// What the app does at start-up before drawing: adopt the core's segment and adapter lists. The
// tests read them from fixtures/rules.json, the `rules` operation's output, which a Rust test
// (tests/it/api.rs) keeps equal to what the core says.
import RULES from '../../fixtures/rules.json';
import type { Rules } from '../src/api/types';
import { adoptCoreLayout } from '../src/lib/scene';

// JSON imports are typed loosely (`family` as a string); the file is the core's output.
adoptCoreLayout(RULES as Rules);
