import { fileURLToPath } from 'node:url';

/** The built dashboard (`vite build`): the API process serves these files under `{base_url}/dashboard/`. */
export const dashboardDist: string = fileURLToPath(new URL('./dist', import.meta.url));
