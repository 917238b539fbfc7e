import { render } from 'preact';

/** A fresh element in the document for one test to render into. */
export function freshRoot(): HTMLElement {
  const root = document.createElement('div');
  document.body.append(root);
  return root;
}

/** Unmounts what a test rendered (so its effects stop) and takes its element out. */
export function dropRoot(root: HTMLElement): void {
  render(null, root);
  root.remove();
}
