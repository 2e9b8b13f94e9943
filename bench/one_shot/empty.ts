// An empty script: the runtime's own start and exit (bench/one_shot.ts times
// import.ts against it).
