/** The runtime's task-history meeting point lives in core (core/tasks/task-history.ts); kept here for the plugin's own imports and tests. */
export { registerTaskHistory, taskHistory, type TaskHistory, type TaskInput } from '../../core/tasks/task-history.js';
