// The hooks that also run on an auth hook's token requests: the built-in
// logging hooks, each added here by its constructor. The client looks a
// hook up here rather than asking `instanceof` of the logging classes, so a
// client that logs nothing does not carry them (a bundler drops them).

/** The built-in logging hooks (and instances of their subclasses) created so far. */
export const tokenLoggers: WeakSet<object> = new WeakSet();
