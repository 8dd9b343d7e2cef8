/** Stylesheets are bundled by vite; importing one only has a side effect. */
declare module '*.css';
