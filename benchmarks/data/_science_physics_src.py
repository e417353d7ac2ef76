"""Physics questions of benchmarks/data/authored_science.json (see ``_science_src``).

Written and labelled by the rubricjudge developers (MIT, like the project).
"""

from __future__ import annotations

from _science_src import TWO, A, nominal, ordinal

Q: list[dict] = []


def q(qid, question, criteria, penalty, answers, choice=None):
    Q.append(
        dict(
            id=qid,
            question=question,
            criteria=criteria,
            penalty=penalty,
            choice=choice,
            answers=answers,
        )
    )


q(
    "ramp_speed",
    "A 2 kg block slides from rest down a frictionless ramp whose top is 5 m above the floor. "
    "How fast is it moving at the bottom? Explain your method.",
    [
        "States that mechanical energy is conserved, or that the block's potential energy is converted into kinetic energy",
        "Gives a speed at the bottom of about 9.9 m/s (10 m/s if g = 10 m/s^2 is used)",
        "States that no energy is lost because there is no friction",
    ],
    "Claims that the block's speed at the bottom depends on its mass",
    [
        A(
            "explicit",
            "MMMU",
            "I used conservation of mechanical energy. At the top the block has mgh = 2 x 9.8 x 5 = 98 J "
            "of potential energy, and at the bottom all of it has become kinetic energy, so 1/2 mv^2 = 98 J "
            "and v = 9.9 m/s. Because the ramp is frictionless, none of the energy is lost as heat.",
        ),
        A(
            "informal",
            "MMMU",
            "all the height energy turns into movement energy since theres nothing rubbing to waste any of it. "
            "so v = sqrt(2*9.8*5) which is about 9.9 m/s",
        ),
        A(
            "partial",
            "MUUU",
            "Energy is conserved, so mgh = 1/2 mv^2. That gives v = 2gh = 98 m/s.",
        ),
        A("partial", "UMUU", "Its going roughly 10 m/s at the bottom (I took g as 10)."),
        A(
            "wrong",
            "UUUM",
            "The block is 2 kg so it ends up going twice as fast as a 1 kg block would from the same ramp, "
            "about 20 m/s.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Ramps are used for wheelchair access because spreading the climb over a longer distance "
            "reduces the force needed to go up.",
        ),
    ],
)

q(
    "drop_two_balls",
    "A 1 kg ball and a 5 kg ball are dropped at the same moment from the same height. Ignoring air "
    "resistance, which one lands first? Explain.",
    [
        "States that both balls land at the same time",
        "States that all objects fall with the same acceleration (g) whatever their mass",
        "Explains that the heavier ball is pulled harder but also has more mass to accelerate, so the effects cancel",
    ],
    "Claims that the heavier ball falls faster or lands first",
    [
        A(
            "explicit",
            "MMMU",
            "They land at the same time. Without air resistance every object falls with the same "
            "acceleration g = 9.8 m/s^2, whatever its mass. The 5 kg ball feels five times the "
            "gravitational force, but it also has five times the mass to accelerate, so F/m is the same.",
        ),
        A(
            "informal",
            "MMMU",
            "same time!! gravity speeds everything up by the same amount no matter how heavy it is. the big "
            "one gets pulled harder but its also harder to get moving so it cancels out",
        ),
        A(
            "partial",
            "MUUU",
            "Lots of people think the 5 kg ball wins, but it doesn't - they hit the ground together.",
        ),
        A("partial", "MUUU", "They both hit the floor at the exact same moment."),
        A(
            "wrong",
            "UUUM",
            "The 5 kg ball lands first, because gravity pulls harder on heavier things so they accelerate faster.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Parachutes work by having a large surface area, which increases air resistance.",
        ),
    ],
)

q(
    "constant_velocity_push",
    "A box is pushed across a floor at constant velocity with a horizontal force of 40 N. What is the "
    "friction force on the box? Explain.",
    [
        "States that the friction force is 40 N",
        "States that friction acts opposite to the push (against the motion)",
        "Explains that the forces are balanced (net force zero) because the velocity is constant",
    ],
    "Claims that moving at constant velocity requires an unbalanced (net) force in the direction of motion",
    [
        A(
            "explicit",
            "MMMU",
            "The friction force is 40 N and it points backwards, opposite to the push. Because the box moves "
            "at constant velocity its acceleration is zero, so by Newton's first law the forces are balanced "
            "and the net force is zero.",
        ),
        A(
            "informal",
            "MMMU",
            "its 40 newtons going the other way. the box isnt speeding up or slowing down so the push and the "
            "friction must cancel each other out",
        ),
        A("partial", "MUUU", "Friction = 40 N."),
        A("partial", "UMUU", "Friction acts backwards, against the way the box is sliding."),
        A(
            "wrong",
            "UUUM",
            "The push has to be bigger than friction or the box would stop moving, so friction must be less "
            "than 40 N, maybe about 30 N.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Friction is caused by tiny bumps on the two surfaces catching on each other.",
        ),
    ],
)

q(
    "braking_distance",
    "A car's braking distance is 20 m at 30 km/h. Roughly what is it at 60 km/h, with the same braking "
    "force? Explain.",
    [
        "Gives a braking distance of about 80 m (four times as far)",
        "States that kinetic energy is proportional to the square of the speed",
        "Explains that the brakes must remove the kinetic energy (work done by the braking force over the distance)",
    ],
    "Claims that doubling the speed doubles the braking distance",
    [
        A(
            "explicit",
            "MMMU",
            "About 80 m. Kinetic energy is 1/2 mv^2, so it is proportional to the square of the speed: doubling "
            "the speed gives four times the kinetic energy. The brakes remove that energy by doing work, force "
            "times distance, and with the same force the distance must be four times as long.",
        ),
        A(
            "informal",
            "MMMU",
            "Twice as fast means 2 squared = 4 times the movement energy (KE goes with v^2), and the brakes have "
            "to soak all that up with the same grip, so it takes 4x the distance - 80 m.",
        ),
        A(
            "partial",
            "UMMU",
            "The brakes have to get rid of the car's kinetic energy, and kinetic energy depends on speed "
            "squared. I'm not sure what the number would be though.",
        ),
        A("partial", "MUUU", "it would be about 80 metres"),
        A(
            "wrong",
            "UUUM",
            "Double the speed means double the braking distance, so 40 m.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Anti-lock brakes stop the wheels from locking so the driver can still steer while braking.",
        ),
    ],
)

q(
    "series_bulb_added",
    "A bulb is lit by a battery. A second identical bulb is added in series with the first. What happens "
    "to the brightness of the first bulb, and why?",
    [
        "States that the total resistance of the circuit increases",
        "States that the current through the first bulb decreases",
        "States that the current is the same at every point of a series circuit",
    ],
    "Claims that the current is used up by the first bulb so less reaches the second",
    [
        A(
            "explicit",
            "MMMU",
            "The first bulb gets dimmer. Adding a second bulb in series increases the total resistance, so the "
            "battery drives a smaller current. In a series circuit the current is the same everywhere, so both "
            "bulbs get this smaller current and glow equally dimly.",
            "It gets dimmer",
        ),
        A(
            "informal",
            "MMMU",
            "dimmer. 2 bulbs in a row = more stuff resisting so less current flows, and its the same amount of "
            "current going thru both of them",
            "It gets dimmer",
        ),
        A(
            "partial",
            "UMUU",
            "It gets dimmer because less current flows now.",
            "It gets dimmer",
        ),
        A(
            "wrong",
            "UUUM",
            "The first bulb stays just as bright, but the second one is dimmer, because the first bulb uses "
            "up most of the current before it gets to the second.",
            "It stays the same",
        ),
        A(
            "partial",
            "MUUU",
            "The resistance of the whole circuit goes up when you add another bulb in series.",
            "Not stated",
        ),
        A(
            "offtopic",
            "UUUU",
            "LED bulbs use much less energy than filament bulbs for the same amount of light.",
            "Not stated",
        ),
    ],
    choice=nominal(
        "What does the answer say happens to the brightness of the first bulb?",
        [
            ("It gets dimmer", 1.0),
            ("It stays the same", 0.0),
            ("It gets brighter", 0.0),
            ("Not stated", 0.0),
        ],
    ),
)

q(
    "parallel_bulb_breaks",
    "Two bulbs are connected in parallel to a battery. One bulb breaks. What happens to the other bulb? "
    "Explain.",
    [
        "States that the other bulb stays lit",
        "Explains that the other bulb is on its own complete loop (branch) to the battery",
        "States that the voltage across the remaining bulb is unchanged (it is still the battery voltage)",
    ],
    "Claims that the other bulb goes out",
    [
        A(
            "explicit",
            "MMMU",
            "The other bulb stays lit. In a parallel circuit each bulb is on its own branch, a complete loop "
            "back to the battery, so a break in one branch does not open the other. The remaining bulb still "
            "has the full battery voltage across it, so it is just as bright as before.",
        ),
        A(
            "informal",
            "MMMU",
            "it keeps shining. it has its own path to the battery that doesnt go thru the broken one, and it "
            "still gets the whole battery voltage",
        ),
        A("partial", "MUUU", "Nothing happens to it, it stays on."),
        A(
            "partial",
            "MMUU",
            "Still lit, because the electricity can still go round through its own separate path.",
        ),
        A(
            "wrong",
            "UUUM",
            "Both go out, because when one bulb breaks the circuit is broken and no current can flow anywhere.",
        ),
        A("offtopic", "UUUU", "idk"),
    ],
)

q(
    "ohms_law_current",
    "A 4 ohm resistor is connected to a 12 V battery. What current flows? Show how you got it.",
    [
        "States Ohm's law (V = IR) or its rearranged form I = V/R",
        "Gets the numerical value 3 for the current",
        "Gives the unit of current as amps (A)",
    ],
    None,
    [
        A("explicit", "MMM", "Using Ohm's law, I = V / R = 12 V / 4 ohms = 3 A."),
        A(
            "informal",
            "MMM",
            "voltage = current x resistance so current = 12 divided by 4 which is 3 amps",
        ),
        A("partial", "MMU", "I = V/R = 12/4 = 3"),
        A("partial", "MUM", "V = IR so I = R/V = 4/12 = 0.33 A"),
        A("wrong", "UUM", "Current = 12 x 4 = 48 A because you multiply voltage and resistance."),
        A(
            "offtopic",
            "UUU",
            "Resistors get warm when current flows through them because electrical energy is transferred to heat.",
        ),
    ],
)

q(
    "sticky_collision",
    "A 2 kg trolley moving at 3 m/s hits a 1 kg trolley at rest and they stick together. How fast do they "
    "move afterwards? Explain.",
    [
        "States that momentum is conserved in the collision",
        "Gives the final speed as 2 m/s",
        "States that kinetic energy is not conserved (some is transferred to heat or sound)",
    ],
    "Claims that kinetic energy is conserved in this collision",
    [
        A(
            "explicit",
            "MMMU",
            "Momentum is conserved. Before: 2 kg x 3 m/s = 6 kg m/s. After, the 3 kg pair must have the same "
            "momentum, so v = 6 / 3 = 2 m/s. Kinetic energy is not conserved: it drops from 9 J to 6 J, the "
            "rest going to heat and sound.",
        ),
        A(
            "informal",
            "MMMU",
            "The total 'mass times speed' before and after stays the same, so 2x3 = 3 x v and v = 2 m/s. Some "
            "movement energy gets lost as a bang and warmth tho, it's a sticky crash.",
        ),
        A("partial", "MMUU", "p before = p after. 6 = 3v so v = 2 m/s"),
        A(
            "wrong",
            "UUUM",
            "Kinetic energy is conserved so 1/2 x 2 x 3^2 = 1/2 x 3 x v^2, which gives v = 2.45 m/s.",
        ),
        A(
            "wrong",
            "UUUU",
            "They keep going at 3 m/s, since the second trolley was not moving it doesn't slow anything down.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Crumple zones in cars make a collision last longer, which reduces the force on the passengers.",
        ),
    ],
)

q(
    "table_roll_off",
    "One ball rolls off a table at 2 m/s at the same moment that another ball is dropped from the same "
    "height. Which hits the floor first? Explain.",
    [
        "States that both balls hit the floor at the same time",
        "States that the horizontal motion does not affect the vertical motion",
        "States that both balls have the same vertical acceleration (g) and start with zero vertical velocity",
    ],
    "Claims that the ball moving horizontally stays in the air longer (or lands later)",
    [
        A(
            "explicit",
            "MMMU",
            "They hit the floor at the same time. The horizontal and vertical motions are independent: both "
            "balls start with zero vertical velocity and both accelerate downward at g, so they fall the same "
            "height in the same time. The rolling ball just lands further away.",
        ),
        A(
            "informal",
            "MMMU",
            "same time. going sideways doesnt change how fast you fall - both start with no downward speed and "
            "gravity pulls them down the same",
        ),
        A("partial", "MUUU", "Same time, the rolled one just lands further out."),
        A(
            "wrong",
            "UUUM",
            "The dropped ball lands first. The rolling ball is moving forward so it stays up in the air longer.",
        ),
        A(
            "partial",
            "UMUU",
            "How fast it moves sideways has nothing to do with its falling motion.",
        ),
        A(
            "offtopic",
            "UUUU",
            "A ball rolling across a table slows down because of friction and air resistance.",
        ),
    ],
)

q(
    "string_released",
    "A ball is swung in a horizontal circle on a string. The string snaps. Describe the ball's path just "
    "after, and explain.",
    [
        "States that the ball moves off in a straight line along the tangent to the circle",
        "States that while in the circle the string provided a force toward the centre (centripetal force)",
        "Explains that with the string gone there is no horizontal force, so the ball keeps its velocity (Newton's first law)",
    ],
    "Claims that the ball flies directly outward, away from the centre",
    [
        A(
            "explicit",
            "MMMU",
            "The ball flies off in a straight line along the tangent to the circle at the point where the string "
            "broke. While it was circling, the tension in the string pulled it toward the centre, providing the "
            "centripetal force. Once that force is gone, nothing acts on it horizontally, so by Newton's first "
            "law it carries on with the velocity it had.",
        ),
        A(
            "informal",
            "MMMU",
            "It just goes straight, like continuing the direction it was heading at that instant (tangent). The "
            "string was what kept pulling it inwards to the middle; with no pull anymore it keeps going at the "
            "same speed and direction.",
        ),
        A(
            "wrong",
            "UUUM",
            "It gets flung straight outwards, directly away from the centre, because of the centrifugal force.",
        ),
        A("partial", "MUUU", "It travels off in a straight line at a tangent."),
        A(
            "partial",
            "UMUU",
            "The string was pulling the ball in towards the centre all the time it was going round.",
        ),
        A("offtopic", "UUUU", "The faster you swing it the more tension there is in the string."),
    ],
)

q(
    "truck_car_collision",
    "A heavy truck and a small car collide head-on. Which vehicle experiences the larger force during the "
    "collision? Explain.",
    [
        "States that the forces on the two vehicles are equal in size",
        "Refers to Newton's third law (forces come in equal and opposite pairs)",
        "Explains that the car has a larger acceleration (or damage) because it has less mass",
    ],
    "Claims that the truck exerts a larger force on the car than the car exerts on the truck",
    [
        A(
            "explicit",
            "MMMU",
            "Neither: by Newton's third law the force the truck exerts on the car is equal in size and opposite "
            "in direction to the force the car exerts on the truck. The car is affected more because it has "
            "much less mass, so the same force gives it a much larger acceleration.",
            "Neither: the forces are equal",
        ),
        A(
            "informal",
            "MMMU",
            "they push on each other the same amount (every action has an equal and opposite reaction). the car "
            "gets wrecked more cos its lighter so the same push speeds it up/slows it down way more",
            "Neither: the forces are equal",
        ),
        A(
            "wrong",
            "UUUM",
            "The car feels a much bigger force because the truck is heavier and hits harder.",
            "The car",
        ),
        A(
            "partial",
            "UUMU",
            "The car is lighter so it gets a bigger change in velocity and more damage.",
            "Not stated",
        ),
        A(
            "partial",
            "MUUU",
            "The sizes of the forces are the same on both of them.",
            "Neither: the forces are equal",
        ),
        A(
            "offtopic",
            "UUUU",
            "Seat belts reduce injuries by spreading the force over a larger area of the body.",
            "Not stated",
        ),
    ],
    choice=nominal(
        "Which vehicle does the answer say experiences the larger force?",
        [
            ("The truck", 0.0),
            ("The car", 0.0),
            ("Neither: the forces are equal", 1.0),
            ("Not stated", 0.0),
        ],
    ),
)

q(
    "steel_ship_floats",
    "A steel ship floats even though steel is denser than water. Explain why.",
    [
        "States that the ship displaces (pushes aside) water",
        "States that the upward buoyant force equals the weight of the water displaced",
        "Explains that the hollow hull, full of air, makes the ship's average density less than water's",
    ],
    "Claims that the ship floats because steel is lighter (less dense) than water",
    [
        A(
            "explicit",
            "MMMU",
            "The ship's hull pushes aside (displaces) a large volume of water. By Archimedes' principle the "
            "upward buoyant force equals the weight of that displaced water. Because the hull is hollow and "
            "full of air, the ship's average density is less than water's, so it can displace its own weight "
            "of water before it sinks too far.",
        ),
        A(
            "informal",
            "MMMU",
            "the ship is mostly air inside so overall its less dense than water. it sits in the water and "
            "shoves a load of water out the way, and the water pushes back up with a force the same as the "
            "weight of that shoved water",
        ),
        A(
            "partial",
            "UUMU",
            "Because the inside of the ship is full of air, so on average it is less dense than the sea.",
        ),
        A(
            "wrong",
            "UUUM",
            "Ships are made of a special light steel that is less dense than water, so it floats.",
        ),
        A(
            "partial",
            "MUUU",
            "The ship pushes a lot of water out of the way when it sits in the sea.",
        ),
        A("offtopic", "UUUU", "Steel is an alloy of iron and carbon."),
    ],
)

q(
    "sharp_knife",
    "Why does a sharp knife cut more easily than a blunt one, if you press with the same force?",
    [
        "States that pressure is force divided by area",
        "States that the sharp edge has a smaller contact area",
        "Concludes that the sharp knife exerts a greater pressure",
    ],
    "Claims that the sharp knife exerts a greater force",
    [
        A(
            "explicit",
            "MMMU",
            "Pressure = force / area. The sharp edge touches the food over a much smaller area, so the same "
            "force produces a much greater pressure, which is enough to cut.",
        ),
        A(
            "informal",
            "MMMU",
            "sharp edge = teeny tiny area touching, and pressure is how much force is squashed onto each bit of "
            "area, so the same push gives loads more pressure",
        ),
        A(
            "partial",
            "UMMU",
            "The sharp blade touches the food over a smaller area, so it makes more pressure.",
        ),
        A(
            "wrong",
            "UUUM",
            "A sharp knife puts more force on the food than a blunt knife does, so it cuts better.",
        ),
        A("partial", "MUUU", "Because pressure equals force over area."),
        A(
            "offtopic",
            "UUUU",
            "You should always cut away from yourself and keep your fingers behind the blade.",
        ),
    ],
)

q(
    "spoon_feels_cold",
    "A metal spoon and a wooden spoon have been in the same room all day. The metal one feels colder to "
    "touch. Why?",
    [
        "States that both spoons are at the same temperature",
        "States that metal is a better thermal conductor than wood",
        "Explains that the metal conducts heat away from the hand faster, which is what feels cold",
    ],
    "Claims that the metal spoon is at a lower temperature than the wooden spoon",
    [
        A(
            "explicit",
            "MMMU",
            "Both spoons are at room temperature, the same temperature. Metal is a much better thermal "
            "conductor than wood, so it carries heat away from your warm hand much faster, and your skin "
            "senses that fast heat loss as cold.",
        ),
        A(
            "informal",
            "MMMU",
            "theyre actually the same temp. metal lets heat flow thru it way easier than wood does so it sucks "
            "the heat out of ur fingers quicker and that feels cold",
        ),
        A(
            "wrong",
            "UUUM",
            "Metal is naturally colder than wood, so the metal spoon is at a lower temperature.",
        ),
        A("partial", "UMUU", "Metal is a good conductor of heat and wood is an insulator."),
        A(
            "partial",
            "MUUU",
            "They are both the same temperature, it just feels different.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Wooden spoons are good for non-stick pans because they don't scratch.",
        ),
    ],
)

q(
    "sound_in_vacuum",
    "An alarm clock rings inside a jar. As the air is pumped out of the jar the sound fades away, but you "
    "can still see the clock. Explain.",
    [
        "States that sound needs a medium (particles such as air) to travel through",
        "States that sound cannot travel through a vacuum",
        "States that light can travel through a vacuum",
    ],
    "Claims that light needs air (or a medium) to travel",
    [
        A(
            "explicit",
            "MMMU",
            "Sound is a vibration passed from particle to particle, so it needs a medium such as air. As the "
            "air is removed there are fewer particles to carry it, and in a vacuum sound cannot travel at all. "
            "Light is an electromagnetic wave that can travel through a vacuum, so you can still see the clock.",
        ),
        A(
            "informal",
            "MMMU",
            "sound is basically air bits bumping into each other so with no air left nothing can carry it, it "
            "cant get across empty space. light doesnt need anything to travel thru, it comes all the way "
            "from the sun through space after all",
        ),
        A(
            "partial",
            "MMUU",
            "Sound has to have particles to move through, and there aren't any in a vacuum.",
        ),
        A(
            "wrong",
            "UUUU",
            "The glass of the jar gets thicker when the air is pumped out, so it blocks the sound.",
        ),
        A(
            "partial",
            "UUMU",
            "Light can go through empty space, that's why we can still see it.",
        ),
        A("offtopic", "UUUU", "Alarm clocks were first mass-produced in the 19th century."),
    ],
)

q(
    "straw_looks_bent",
    "A straw standing in a glass of water looks bent at the water's surface. Explain why.",
    [
        "States that light changes direction (refracts) when it passes between water and air",
        "States that light travels at a different speed in water than in air",
        "Explains that the brain assumes light travels in straight lines, so the underwater part appears in the wrong place",
    ],
    "Claims that the straw is actually bent by the water",
    [
        A(
            "explicit",
            "MMMU",
            "Light from the underwater part of the straw refracts, bending as it passes from water into air, "
            "because light travels more slowly in water than in air. Our brain assumes the light reached our "
            "eyes in a straight line, so it places that part of the straw in the wrong position and the straw "
            "looks bent.",
        ),
        A(
            "informal",
            "MMMU",
            "light goes slower in water then speeds up coming out into the air, so the rays bend at the surface. "
            "your eyes/brain think light always goes straight so they trace it back to the wrong spot",
        ),
        A("partial", "MUUU", "It's refraction - the light bends when it leaves the water."),
        A("wrong", "UUUM", "The water pressure pushes on the straw and bends it slightly."),
        A(
            "partial",
            "UMUU",
            "Light moves slower in water than it does in air.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Paper straws are being used more because plastic straws pollute the sea.",
        ),
    ],
)

q(
    "seasons_cause",
    "Why is it warmer in summer than in winter in the UK?",
    [
        "States that Earth's axis is tilted",
        "Explains that in summer the UK's hemisphere is tilted toward the Sun, so sunlight hits more directly (higher in the sky)",
        "States that days are longer in summer",
    ],
    "Claims that summer happens because Earth is closer to the Sun",
    [
        A(
            "explicit",
            "MMMU",
            "Earth's axis is tilted by about 23.5 degrees. In the UK's summer the northern hemisphere is tilted "
            "toward the Sun, so the Sun is higher in the sky and its rays hit the ground more directly, "
            "spreading the energy over a smaller area. The days are also longer, so there are more hours of "
            "heating.",
            "The tilt of Earth's axis",
        ),
        A(
            "informal",
            "MMMU",
            "Earth is on a lean. in june our half leans towards the sun so the sun gets way higher in the sky "
            "and shines down more straight on, plus it stays light for ages",
            "The tilt of Earth's axis",
        ),
        A(
            "wrong",
            "UUUM",
            "In summer the Earth is nearer to the Sun in its orbit, so we get more heat.",
            "Earth's changing distance from the Sun",
        ),
        A(
            "partial",
            "UUMU",
            "The days are longer so there is more time for the sun to heat things.",
            "Something else or no cause given",
        ),
        A(
            "partial",
            "MUUU",
            "It's because the Earth is tilted.",
            "The tilt of Earth's axis",
        ),
        A(
            "offtopic",
            "UUUU",
            "The UK has a mild climate partly because of the Gulf Stream.",
            "Something else or no cause given",
        ),
    ],
    choice=nominal(
        "What does the answer give as the cause of the seasons?",
        [
            ("The tilt of Earth's axis", 1.0),
            ("Earth's changing distance from the Sun", 0.0),
            ("Something else or no cause given", 0.0),
        ],
    ),
)

q(
    "moon_phases",
    "Why does the Moon appear to change shape over a month?",
    [
        "States that half of the Moon is always lit by the Sun",
        "States that the Moon orbits Earth (in about a month)",
        "Explains that we see different amounts of the lit half as its position relative to Earth and Sun changes",
    ],
    "Claims that the phases are caused by Earth's shadow falling on the Moon",
    [
        A(
            "explicit",
            "MMMU",
            "The Sun always lights up half of the Moon. As the Moon orbits Earth, about once a month, the angle "
            "between the Sun, Earth and Moon changes, so from Earth we see different amounts of the lit half: "
            "all of it at full moon, none at new moon.",
            "Half of the Moon lit by the Sun, seen from different angles",
        ),
        A(
            "informal",
            "MMMU",
            "the sunny side of the moon is always half of it. the moon goes round us, so depending where it is we "
            "can see a big chunk of the bright side or just a sliver of it",
            "Half of the Moon lit by the Sun, seen from different angles",
        ),
        A(
            "wrong",
            "UMUM",
            "As the Moon goes round the Earth, the Earth's shadow covers different parts of it, giving the phases.",
            "Earth's shadow",
        ),
        A(
            "partial",
            "UMUU",
            "The moon goes around the earth every 27 days or so.",
            "Other or none",
        ),
        A(
            "partial",
            "MUUU",
            "One half of the moon is always being lit up by the sun, like half of the earth is in daytime.",
            None,  # a fact, not quite a cause: graders could pick either option
        ),
        A(
            "offtopic",
            "UUUU",
            "The Moon causes the tides because its gravity pulls on the oceans.",
            "Other or none",
        ),
    ],
    choice=nominal(
        "What does the answer give as the cause of the Moon's phases?",
        [
            ("Half of the Moon lit by the Sun, seen from different angles", 1.0),
            ("Earth's shadow", 0.0),
            ("Other or none", 0.0),
        ],
    ),
)

q(
    "lifting_power",
    "A student lifts a 50 kg box up 2 m in 4 s. What is the student's power output? (g = 9.8 m/s^2)",
    [
        "Calculates the work done (or energy gained) as about 980 J",
        "Divides the work by the time to get power",
        "Gives the power as about 245 W with the unit watts",
    ],
    None,
    [
        A(
            "explicit",
            "MMM",
            "Work done = mgh = 50 x 9.8 x 2 = 980 J. Power = work / time = 980 J / 4 s = 245 W.",
        ),
        A(
            "informal",
            "MMM",
            "energy it gains is 50*9.8*2 = 980 joules. spread over 4 seconds thats 980/4 = 245 watts",
        ),
        A("partial", "UMU", "Power = work / time = (50 x 2) / 4 = 25 W"),
        A("partial", "MUU", "The energy needed is 980 J."),
        A("wrong", "UUU", "Power = mass x time = 50 x 4 = 200 W."),
        A(
            "offtopic",
            "UUU",
            "When lifting heavy boxes you should bend your knees and keep your back straight.",
        ),
    ],
)

q(
    "spring_stretch",
    "A spring stretches 3 cm when a 6 N weight hangs from it. How far does it stretch with a 10 N weight? "
    "Explain.",
    [
        "States that the extension is proportional to the force (Hooke's law)",
        "Gives or uses a spring constant of 2 N/cm (200 N/m)",
        "Gives the extension as 5 cm",
    ],
    "Claims that the extension stays the same (3 cm) whatever the weight",
    [
        A(
            "explicit",
            "MMMU",
            "By Hooke's law the extension is proportional to the force, F = kx. Here k = 6 N / 3 cm = 2 N/cm, "
            "so with 10 N the extension is 10 / 2 = 5 cm (as long as the spring stays within its elastic limit).",
        ),
        A(
            "informal",
            "MMMU",
            "every 2 newtons makes it 1 cm longer, and doubling the pull doubles the stretch, so 10 N -> 5 cm",
        ),
        A("partial", "UUMU", "It stretches 5 cm."),
        A(
            "partial",
            "MMUU",
            "Stretch goes up in proportion with the force. k = 6/3 = 2 N per cm. So 10 N gives 10 x 2 = 20 cm.",
        ),
        A("wrong", "UUUM", "A spring always stretches the same amount, so still 3 cm."),
        A("offtopic", "UUUU", "Springs are used in car suspension to absorb bumps in the road."),
    ],
)

q(
    "skydiver_terminal",
    "Explain why a skydiver eventually falls at a constant speed (terminal velocity).",
    [
        "States that air resistance increases as the skydiver's speed increases",
        "States that at terminal velocity air resistance equals the skydiver's weight",
        "States that the resultant (net) force is then zero, so there is no acceleration",
    ],
    "Claims that the skydiver's weight decreases as they fall",
    [
        A(
            "explicit",
            "MMMU",
            "As the skydiver speeds up, air resistance increases. Eventually the air resistance becomes equal to "
            "the skydiver's weight. The resultant force is then zero, so the skydiver stops accelerating and "
            "falls at a constant terminal velocity.",
            "Both",
        ),
        A(
            "informal",
            "MMMU",
            "the faster u go the more the air pushes back on u. at some point the air pushing up = gravity "
            "pulling down, they cancel, so no more speeding up",
            "Both",
        ),
        A(
            "wrong",
            "UUUM",
            "The skydiver gets lighter as they fall, so gravity pulls less and they stop speeding up.",
            "One",
        ),
        A(
            "partial",
            "MUUU",
            "The drag gets bigger the faster they fall.",
            "One",
        ),
        A(
            "partial",
            "UUMU",
            "Once the forces on them add up to zero, they can't accelerate any more.",
            "Neither",
        ),
        A(
            "offtopic",
            "UUUU",
            "Skydivers usually open their parachute at around 1000 m.",
            "Neither",
        ),
    ],
    choice=ordinal(
        "How many of the two forces on the skydiver (weight or gravity; air resistance or drag) does the answer name?",
        TWO,
    ),
)

q(
    "lift_scale",
    "A person stands on bathroom scales in a lift. What do the scales read while the lift accelerates "
    "upward, compared with the person's weight? Explain.",
    [
        "States that the reading is greater than the person's weight",
        "Explains that an upward resultant force is needed to accelerate the person upward",
        "States that the scales measure the contact (normal) force they push up with",
    ],
    "Claims that the person's mass or gravitational pull increases in the lift",
    [
        A(
            "explicit",
            "MMMU",
            "The scales read more than the person's weight. To accelerate upward there must be an upward "
            "resultant force, so the normal force from the scales must be bigger than the weight; the scales "
            "display this normal (contact) force.",
            "More than the weight",
        ),
        A(
            "informal",
            "MMMU",
            "more than normal. the floor has to shove you up harder than gravity pulls you down, otherwise you "
            "wouldnt speed up upwards - and the scale just shows how hard it's pushing on you",
            "More than the weight",
        ),
        A(
            "wrong",
            "MUUM",
            "It reads more because gravity gets stronger when the lift accelerates and the person's mass goes up.",
            "More than the weight",
        ),
        A("partial", "MUUU", "The scales show a bigger number than usual.", "More than the weight"),
        A(
            "wrong",
            "UUUU",
            "The reading is less, because the lift is moving up and carrying some of the weight.",
            "Less than the weight",
        ),
        A(
            "offtopic",
            "UUUU",
            "Lifts have counterweights so the motor does not have to lift the whole car.",
            "Not stated",
        ),
    ],
    choice=nominal(
        "What does the answer say the scales read while the lift accelerates upward?",
        [
            ("More than the weight", 1.0),
            ("The same as the weight", 0.0),
            ("Less than the weight", 0.0),
            ("Not stated", 0.0),
        ],
    ),
)

q(
    "wave_speed",
    "A wave on a rope has a frequency of 5 Hz and a wavelength of 2 m. What is its speed?",
    [
        "Multiplies the frequency by the wavelength (speed = frequency x wavelength)",
        "Gets the numerical value 10 for the speed",
        "Gives the unit of the speed as m/s (metres per second)",
    ],
    "Claims that the speed is found by dividing the frequency by the wavelength (or the wavelength by the frequency)",
    [
        A("explicit", "MMMU", "v = f x lambda = 5 Hz x 2 m = 10 m/s."),
        A(
            "informal",
            "MMMU",
            "5 waves go past every second and each one is 2 metres long, so it moves 10 m every second",
        ),
        A("partial", "MMUU", "speed = frequency times wavelength = 10"),
        A("wrong", "UUUM", "speed = frequency / wavelength = 5 / 2 = 2.5 m/s"),
        A("wrong", "UUMU", "The wave moves at 7 m/s, because 5 + 2 = 7."),
        A(
            "offtopic",
            "UUUU",
            "Waves on a rope are transverse: the rope moves at right angles to the wave.",
        ),
    ],
)

q(
    "half_life",
    "A radioactive sample has a mass of 80 g and a half-life of 5 days. How much of it is left undecayed "
    "after 15 days? Explain.",
    [
        "States that 15 days is three half-lives",
        "Halves the amount once per half-life (80 to 40 to 20 to 10)",
        "Gives the answer 10 g",
    ],
    "Claims that the sample decays completely (nothing left) after some number of half-lives",
    [
        A(
            "explicit",
            "MMMU",
            "15 days is three half-lives. After each half-life half of the remaining nuclei decay: 80 g -> 40 g "
            "-> 20 g -> 10 g. So 10 g is left.",
        ),
        A(
            "informal",
            "MMMU",
            "every 5 days it halves. thats 3 lots of halving in 15 days: 80, 40, 20, 10. so 10 grams",
        ),
        A("partial", "UUMU", "10 g"),
        A(
            "wrong",
            "UUUM",
            "After 5 days 40 g is gone, after 10 days all 80 g is gone, so there is nothing left.",
        ),
        A(
            "partial",
            "MUUU",
            "15 days = 3 half lives, so you divide 80 by 3 and get about 27 g.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Radioactive decay is random: you cannot predict when a single nucleus will decay.",
        ),
    ],
)

q(
    "balloon_wall",
    "A balloon rubbed on a wool jumper sticks to a wall. Explain why.",
    [
        "States that rubbing transfers electrons between the balloon and the jumper",
        "States that the balloon becomes negatively charged",
        "Explains that the charged balloon repels electrons in the wall's surface, leaving it oppositely charged (induced charge), so they attract",
    ],
    "Claims that rubbing creates new charge (rather than moving existing charge)",
    [
        A(
            "explicit",
            "MMMU",
            "Rubbing transfers electrons from the wool to the balloon, so the balloon becomes negatively charged. "
            "Near the wall it repels electrons in the wall's surface, leaving that surface slightly positive. "
            "Opposite charges attract, so the balloon sticks.",
        ),
        A(
            "informal",
            "MMMU",
            "the balloon steals electrons off the jumper so its got extra negative charge. when u hold it to the "
            "wall it pushes the wall's electrons back a bit, so the bit of wall near it is positive, and + and - "
            "pull together",
        ),
        A(
            "partial",
            "MMUU",
            "Electrons move from the jumper onto the balloon, making it negative.",
        ),
        A(
            "wrong",
            "UUUM",
            "Rubbing makes brand new static electricity on the balloon, and static is sticky, so it sticks.",
        ),
        A("partial", "UMUU", "The balloon ends up with a negative charge."),
        A(
            "offtopic",
            "UUUU",
            "Balloons float when they are filled with helium, which is less dense than air.",
        ),
    ],
)

q(
    "beach_sand_water",
    "On a sunny day the sand on a beach gets much hotter than the sea. Explain why.",
    [
        "States that water has a higher specific heat capacity than sand",
        "Explains that the same energy raises the temperature of water less",
        "Mentions that the sea's heat is spread through a large volume by mixing (currents or waves), or that sand only heats at its surface",
    ],
    "Claims that the sea receives less sunlight (energy) than the sand",
    [
        A(
            "explicit",
            "MMMU",
            "Water has a much higher specific heat capacity than sand, so the same amount of energy from the Sun "
            "raises the temperature of the water much less. The sea also mixes, spreading the heat through a "
            "large volume, while the sun only heats a thin layer at the surface of the sand.",
        ),
        A(
            "informal",
            "MMMU",
            "water takes loads more energy to warm up by each degree than sand does, so the same sunshine barely "
            "changes the sea's temp. plus the waves churn the warm water down into all the cold water below",
        ),
        A(
            "partial",
            "MUUU",
            "Because water has a high specific heat capacity.",
        ),
        A(
            "wrong",
            "UUUM",
            "The sea reflects most of the sunlight so it gets less energy than the sand does.",
        ),
        A(
            "partial",
            "MMUU",
            "It takes more energy to heat up water than sand, so with the same energy the water warms up less.",
        ),
        A("offtopic", "UUUU", "Sand is mostly made of tiny grains of quartz."),
    ],
)

q(
    "ice_melting_temp",
    "While a block of ice melts in a warm room, a thermometer in the ice-water mixture stays at 0 C. Why "
    "does the temperature not rise?",
    [
        "States that the ice is still absorbing energy (heat) while it melts",
        "Explains that the energy goes into breaking the bonds (forces of attraction) between the water molecules",
        "Names this energy as latent heat (of fusion)",
    ],
    "Claims that no energy is absorbed while the ice is melting",
    [
        A(
            "explicit",
            "MMMU",
            "The ice is still absorbing heat from the room, but while it melts this energy goes into breaking "
            "the bonds that hold the water molecules in the solid, not into making them move faster. This energy "
            "is the latent heat of fusion, so the temperature stays at 0 C until all the ice has melted.",
        ),
        A(
            "informal",
            "MMMU",
            "it IS taking in heat, but the heat is busy pulling the molecules apart from each other instead of "
            "making them hotter. thats called latent heat",
        ),
        A("partial", "MUUU", "The heat going in is all being used to melt the ice."),
        A(
            "wrong",
            "UUUM",
            "The ice stops taking in heat while it melts, so the temperature can't change.",
        ),
        A("partial", "UUMU", "It's because of latent heat."),
        A("offtopic", "UUUU", "Ice floats because it is less dense than liquid water."),
    ],
)

q(
    "lightning_thunder",
    "Why do we see lightning before we hear the thunder?",
    [
        "States that light travels much faster than sound",
        "Gives an approximate speed of sound in air (about 340 m/s) or of light (about 300,000 km/s)",
        "States that lightning and thunder are produced at the same time",
    ],
    "Claims that the thunder is produced after the lightning",
    [
        A(
            "explicit",
            "MMMU",
            "Lightning and thunder happen at the same moment, but light travels at about 300,000 km/s while "
            "sound travels at only about 340 m/s in air, so the light reaches us almost instantly and the sound "
            "arrives later.",
        ),
        A(
            "informal",
            "MMMU",
            "theyre made at the exact same time but light is way way quicker. sound only does like 340 metres "
            "a second so it takes a while to get to you",
        ),
        A("partial", "MUUU", "Because light is faster than sound."),
        A(
            "wrong",
            "UUUM",
            "The lightning has to heat the air first, and the thunder only starts a few seconds after the flash.",
        ),
        A(
            "partial",
            "MUMU",
            "Both happen at once but the light gets to us before the sound because it goes faster.",
        ),
        A("offtopic", "UUUU", "Lightning is more likely to strike tall objects such as trees."),
    ],
)
