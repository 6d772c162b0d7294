import type Sigma from 'sigma';
import type { CameraState } from 'sigma/types';

/**
 * How the fast drawing moves. Drawing 44,000 edges takes a software WebGL (a machine without a GPU, a
 * browser that blocks it) hundreds of milliseconds a frame, and sigma draws every frame of a move again.
 * Here, while the view moves (a drag, a zoom of the wheel or the buttons, their easing), the picture last
 * drawn is moved and scaled as it is (a CSS transform of sigma's canvases: the compositor's work only,
 * edges and labels included), and the drawing is drawn once the view rests. And sigma's full refresh at
 * the end of a drag (which reads every item and edge again only to draw the edges it hid while moving) is
 * a render.
 */
export function moveAsPicture<N extends object, E extends object>(renderer: Sigma<N, E>): { moving(): boolean } {
  // sigma's own render and refresh, replaced on this instance (its `render` is private in its types).
  const own = renderer as unknown as {
    render(): unknown;
    refresh(opts?: unknown): unknown;
    renderFrame: number | null;
  };
  const render = own.render.bind(renderer);
  const refresh = own.refresh.bind(renderer);
  const camera = renderer.getCamera();
  const mouse = renderer.getMouseCaptor();
  const touch = renderer.getTouchCaptor();
  // Every layer but the one that takes the pointer (its position is where events are read).
  const layers = Object.entries(renderer.getCanvases())
    .filter(([name]) => name !== 'mouse')
    .map(([, canvas]) => canvas);
  for (const canvas of layers) canvas.style.transformOrigin = '0 0';
  /** The camera of the picture on the screen. */
  let drawn: CameraState | undefined = camera.getState();
  // As sigma decides that the view moves (its render hides edges then).
  const moving = () =>
    camera.isAnimated() ||
    mouse.isMoving ||
    mouse.draggedEvents > 0 ||
    mouse.currentWheelDirection !== 0 ||
    touch.isMoving;
  // Two points of the graph where the camera `state` shows them on the screen.
  const seen = (state: CameraState) => [
    renderer.framedGraphToViewport({ x: 0, y: 0 }, { cameraState: state }),
    renderer.framedGraphToViewport({ x: 1, y: 1 }, { cameraState: state }),
  ];
  own.render = () => {
    if (!drawn || !moving()) {
      const done = render();
      for (const canvas of layers) canvas.style.transform = '';
      drawn = camera.getState();
      return done;
    }
    if (own.renderFrame !== null) cancelAnimationFrame(own.renderFrame);
    own.renderFrame = null;
    const [a, b] = seen(drawn);
    const [c, d] = seen(camera.getState());
    const scale = (d.x - c.x) / (b.x - a.x || 1);
    const transform = `translate(${c.x - scale * a.x}px, ${c.y - scale * a.y}px) scale(${scale})`;
    for (const canvas of layers) canvas.style.transform = transform;
    return renderer;
  };
  own.refresh = (opts?: unknown) => (opts ? refresh(opts) : renderer.scheduleRender());
  return { moving };
}
