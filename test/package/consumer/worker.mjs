// A stranger's Worker: the package's Workers entry as it is (the handler and the workspace object class), bundled
// for workerd with esbuild.
export { default, WorkspaceObject } from 'workspace-api/worker';
