// One Coyote testing engine at a time: each installs its own controlled runtime for the tasks it runs, and two
// exploring side by side in one process would share the thread pool's uncontrolled work and each other's timing.
[assembly: CollectionBehavior(DisableTestParallelization = true)]
