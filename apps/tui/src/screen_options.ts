/**
 * How ink draws the TUI: the options `run_tui` renders with, shared with the frame tests so they
 * draw the way the terminal is drawn.
 */

/** ink render options (beyond stdout, stdin and the callbacks) of the TUI's screen. */
export const SCREEN_OPTIONS = {
  exitOnCtrlC: false,
  // Only the lines that changed are rewritten: a keystroke rewrites the input line, not the whole
  // live region. (ink 6.8.0 drew such frames one line too low on the main screen; the patch in
  // `patches/ink@6.8.0.patch` fixes it.)
  incrementalRendering: true,
  // Host events are already batched at ~30 fps by the store and the spinner ticks at 10 fps:
  // ink's own throttle is off (0), so a keystroke is drawn when it arrives. Even a 1 ms throttle
  // would put a timer, and so a sleep the scheduler of a busy machine can stretch, in the path of
  // every keystroke that comes within a millisecond of a streamed frame.
  maxFps: 0,
} as const;
